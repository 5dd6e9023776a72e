/** The calendar date (`YYYY-MM-DD`) in `timeZone` at instant `now`: the company's "today". */
export function companyToday(now: Date, timeZone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(now);
}
