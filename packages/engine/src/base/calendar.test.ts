import { describe, expect, it } from "vitest";
import { addDays, dateToMs, dayNumber } from "./calendar.js";

/** The parse the digits stand in for. */
function parsedMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

describe("dateToMs and dayNumber", () => {
  it("read every day of 1899 to 2201 as Date.parse does", () => {
    const first = Date.UTC(1899, 0, 1) / 86_400_000;
    const last = Date.UTC(2201, 11, 31) / 86_400_000;
    for (let day = first; day <= last; day++) {
      const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
      expect(dateToMs(date)).toBe(parsedMs(date));
      expect(dayNumber(date)).toBe(day);
    }
  });

  it("read the first and last four-digit years and leap days as Date.parse does", () => {
    for (const date of ["0000-01-01", "0000-02-29", "0001-03-01", "1600-02-29", "2000-02-29", "9999-12-31"]) {
      expect(dateToMs(date)).toBe(parsedMs(date));
      expect(dayNumber(date)).toBe(Math.round(parsedMs(date) / 86_400_000));
    }
  });

  it("leave what is not plainly a date to Date.parse", () => {
    for (const date of [
      "2026-13-01",
      "2026-00-10",
      "2026-01-00",
      "2026-01-32",
      "2026-a1-01",
      "2026/01/01",
      "x",
    ]) {
      expect(() => dateToMs(date)).toThrow(/invalid date/);
    }
    // Impossible days that Date.parse still reads are read as it reads them.
    for (const date of ["2026-02-29", "2026-04-31", "1900-02-29"]) {
      const ms = parsedMs(date);
      if (Number.isNaN(ms)) expect(() => dateToMs(date)).toThrow(/invalid date/);
      else expect(dateToMs(date)).toBe(ms);
    }
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
  });
});
