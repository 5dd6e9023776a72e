/**
 * Waits before each retry of a delivery, after the first attempt: Standard Webhooks' reference schedule (Svix):
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts over about 27.6 hours, so a receiver that is down for
 * a whole day still gets the event; after the last the delivery is `failed`.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/**
 * Milliseconds from a failed attempt to the next one, given how many attempts have been made (1 after the first);
 * null when that was the last. `delays` replaces the schedule (tests shorten it).
 */
export function retryDelayMs(
  attemptsMade: number,
  delays: readonly number[] = RETRY_DELAYS_MS,
): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new Error("attemptsMade must be at least 1");
  return delays[attemptsMade - 1] ?? null;
}
