const DAY_MS = 86_400_000;

/**
 * Dates parsed lately: a fit or a plan reads the same few hundred dates once per sales row (tens of thousands of
 * rows), and parsing is most of what a row costs there. Cleared when full.
 */
const parsed = new Map<string, number>();
const PARSED_DATES = 8192;

/** Parses a YYYY-MM-DD date as UTC midnight, in milliseconds. */
export function dateToMs(date: string): number {
  const known = parsed.get(date);
  if (known !== undefined) return known;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new Error(`invalid date: ${date}`);
  if (parsed.size >= PARSED_DATES) parsed.clear();
  parsed.set(date, ms);
  return ms;
}

/** The YYYY-MM-DD date `days` days after `date` (negative goes back). */
export function addDays(date: string, days: number): string {
  return new Date(dateToMs(date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dateToMs(to) - dateToMs(from)) / DAY_MS);
}

/** Day of week, Monday = 0 ... Sunday = 6 (the order of every weekday vector in the engine). */
export function weekdayOf(date: string): number {
  return (new Date(dateToMs(date)).getUTCDay() + 6) % 7;
}

/** Days since 1970-01-01 (the epoch is day 0): the index a date is planned by once, where strings would cost per row. */
export function dayNumber(date: string): number {
  return Math.round(dateToMs(date) / DAY_MS);
}

/** `weekdayOf` of a `dayNumber` (1970-01-01 was a Thursday, weekday 3). */
export function weekdayOfDay(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}
