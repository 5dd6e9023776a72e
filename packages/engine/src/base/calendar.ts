const DAY_MS = 86_400_000;

/**
 * Dates parsed lately, of those not plainly YYYY-MM-DD (`civilDay` reads those from their digits): parsing is most
 * of what a date costs. Cleared when full.
 */
const parsed = new Map<string, number>();
const PARSED_DATES = 8192;

/** Parses a YYYY-MM-DD date as UTC midnight, in milliseconds. */
export function dateToMs(date: string): number {
  const day = civilDay(date);
  if (!Number.isNaN(day)) return day * DAY_MS;
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
  const day = civilDay(date);
  return Number.isNaN(day) ? Math.round(dateToMs(date) / DAY_MS) : day;
}

/**
 * The day number of a plainly valid YYYY-MM-DD date read from its digits, NaN for anything else (left to
 * `Date.parse` and its errors). A fit and the learner each read every history row's date, and the digits cost less
 * than hashing the string into the parsed-dates map: `Date.parse` gives this day times `DAY_MS` exactly.
 */
function civilDay(date: string): number {
  if (date.length !== 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45) return Number.NaN;
  const y0 = date.charCodeAt(0) - 48;
  const y1 = date.charCodeAt(1) - 48;
  const y2 = date.charCodeAt(2) - 48;
  const y3 = date.charCodeAt(3) - 48;
  const m0 = date.charCodeAt(5) - 48;
  const m1 = date.charCodeAt(6) - 48;
  const d0 = date.charCodeAt(8) - 48;
  const d1 = date.charCodeAt(9) - 48;
  // Unsigned, a character below '0' reads as a huge number: one test per digit bounds both sides.
  if (
    y0 >>> 0 > 9 ||
    y1 >>> 0 > 9 ||
    y2 >>> 0 > 9 ||
    y3 >>> 0 > 9 ||
    m0 >>> 0 > 9 ||
    m1 >>> 0 > 9 ||
    d0 >>> 0 > 9 ||
    d1 >>> 0 > 9
  ) {
    return Number.NaN;
  }
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = m0 * 10 + m1;
  const dayOfMonth = d0 * 10 + d1;
  if (month < 1 || month > 12 || dayOfMonth < 1 || dayOfMonth > daysInMonth(year, month)) return Number.NaN;
  // Days from the civil date (H. Hinnant's algorithm): years from March, so the leap day ends a year. Shifted by
  // one 400-year era so that every quotient is of non-negative integers, where `| 0` is the floor and the division
  // an integer one.
  const y = (month <= 2 ? year - 1 : year) + 400;
  const era = (y / 400) | 0;
  const yearOfEra = y - era * 400;
  const dayOfYear = (((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) | 0) + dayOfMonth - 1;
  const dayOfEra = yearOfEra * 365 + ((yearOfEra / 4) | 0) - ((yearOfEra / 100) | 0) + dayOfYear;
  return (era - 1) * 146_097 + dayOfEra - 719_468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** `weekdayOf` of a `dayNumber` (1970-01-01 was a Thursday, weekday 3). */
export function weekdayOfDay(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}
