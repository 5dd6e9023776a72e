/**
 * The panel's calendar. Transaction timestamps are UTC instants; their hourly profile (fewest lines at 08-09
 * UTC, most at 20-22 UTC) is a US shop's day in Eastern time, the home of 84.51°, so a line belongs to its date
 * in America/New_York. Days are indexed from 2017-01-01 (day 0), the panel's year.
 */
export const PANEL_TIME_ZONE = "America/New_York";
export const PANEL_FIRST_DAY = "2017-01-01";
export const PANEL_DAYS = 365;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const firstDayMs = Date.parse(`${PANEL_FIRST_DAY}T00:00:00Z`);

const localDate = new Intl.DateTimeFormat("en-CA", {
  timeZone: PANEL_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

// Intl formatting costs microseconds and the panel has 1.5 M lines: the local date only changes on the hour,
// so one lookup per hour of the year serves them all.
const dayOfHour = new Map<number, number>();

/** The panel day index (0 = 2017-01-01) of an instant in epoch milliseconds, by its date in Eastern time. */
export function panelDayIndex(epochMs: number): number {
  const hour = Math.floor(epochMs / HOUR_MS);
  let day = dayOfHour.get(hour);
  if (day === undefined) {
    const date = localDate.format(new Date(hour * HOUR_MS));
    day = Math.round((Date.parse(`${date}T00:00:00Z`) - firstDayMs) / DAY_MS);
    dayOfHour.set(hour, day);
  }
  return day;
}

/** `YYYY-MM-DD` of a panel day index. */
export function panelDate(dayIndex: number): string {
  return new Date(firstDayMs + dayIndex * DAY_MS).toISOString().slice(0, 10);
}
