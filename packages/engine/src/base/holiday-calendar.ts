import { dayNumber } from "./calendar.js";

/** Days before a holiday that count as its eve (the shopping for it): the 3 days before. */
export const EVE_DAYS = 3;

/** YYYY-MM-DD of the `nth` (1-based) `weekday` (0 = Sunday, as `getUTCDay`) of a month; `nth` -1: the last. */
function nthWeekday(year: number, month: number, weekday: number, nth: number): string {
  if (nth < 0) {
    const last = new Date(Date.UTC(year, month, 0));
    last.setUTCDate(last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7));
    return last.toISOString().slice(0, 10);
  }
  const first = new Date(Date.UTC(year, month - 1, 1));
  first.setUTCDate(1 + ((weekday - first.getUTCDay() + 7) % 7) + 7 * (nth - 1));
  return first.toISOString().slice(0, 10);
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian computus). */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/**
 * The feast holidays of a year that a household shops for beforehand (US): New Year's Day, Easter Sunday, Memorial
 * Day, Independence Day, Labor Day, Thanksgiving and Christmas, as day numbers (`dayNumber`).
 */
export function feastHolidays(year: number): number[] {
  return [
    `${year}-01-01`,
    easter(year),
    nthWeekday(year, 5, 1, -1),
    `${year}-07-04`,
    nthWeekday(year, 9, 1, 1),
    nthWeekday(year, 11, 4, 4),
    `${year}-12-25`,
  ].map(dayNumber);
}

/**
 * Each year's days (from its first day's number): the holiday whose eve the day is, NaN where none; built on first
 * use. A table rather than a map of the eves, and the last year asked kept at hand: the demand fit and the learner
 * ask about every history day of every product (tens of thousands of calls a plan), and finding the day's year
 * through a `Date` was most of what a call cost.
 */
interface YearEves {
  readonly first: number;
  readonly holidays: Float64Array;
}
const evesByYear = new Map<number, YearEves>();
let lastAsked: YearEves | undefined;

function evesOf(year: number): YearEves {
  let eves = evesByYear.get(year);
  if (eves === undefined) {
    const first = Date.UTC(year, 0, 1) / 86_400_000;
    const holidays = new Float64Array(Date.UTC(year + 1, 0, 1) / 86_400_000 - first).fill(Number.NaN);
    // A year's eves include the last days of December before the next New Year's Day.
    for (const holiday of [...feastHolidays(year), ...feastHolidays(year + 1)])
      for (let k = 1; k <= EVE_DAYS; k++) {
        const at = holiday - k - first;
        if (at >= 0 && at < holidays.length) holidays[at] = holiday;
      }
    eves = { first, holidays };
    evesByYear.set(year, eves);
  }
  return eves;
}

/**
 * The feast holiday (its day number) whose eve day `day` (a `dayNumber`) is, or null: one of the `EVE_DAYS` days
 * before it.
 */
export function holidayOfEve(day: number): number | null {
  let eves = lastAsked;
  if (eves === undefined || !(day >= eves.first && day < eves.first + eves.holidays.length)) {
    eves = evesOf(new Date(day * 86_400_000).getUTCFullYear());
    lastAsked = eves;
  }
  const holiday = eves.holidays[day - eves.first];
  return holiday === undefined || Number.isNaN(holiday) ? null : holiday;
}
