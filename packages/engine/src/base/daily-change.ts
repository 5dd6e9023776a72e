/**
 * Slack on "within the max daily change", as a fraction: a grid step or a move built exactly to the limit must not
 * fail the check by a rounding error of the division.
 */
export const CHANGE_TOLERANCE = 1e-9;

/**
 * The engine's one "within the max daily change" check: moving from `prev` to `next` (currency units, `prev` > 0)
 * changes the price by at most `limit` (a fraction of `prev`, e.g. 0.1), up to `CHANGE_TOLERANCE`.
 */
export function withinDailyChange(prev: number, next: number, limit: number): boolean {
  return Math.abs(next / prev - 1) <= limit + CHANGE_TOLERANCE;
}
