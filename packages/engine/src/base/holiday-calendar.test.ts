import { describe, expect, it } from "vitest";
import { addDays, dayNumber } from "./calendar.js";
import { feastHolidays, holidayOfEve } from "./holiday-calendar.js";

const dates = (year: number) => feastHolidays(year).map((d) => addDays("1970-01-01", d));

describe("feast holidays", () => {
  it("falls on the dates of the calendar", () => {
    expect(dates(2017)).toEqual([
      "2017-01-01",
      "2017-04-16",
      "2017-05-29",
      "2017-07-04",
      "2017-09-04",
      "2017-11-23",
      "2017-12-25",
    ]);
    expect(dates(2024).slice(1, 6)).toEqual([
      "2024-03-31",
      "2024-05-27",
      "2024-07-04",
      "2024-09-02",
      "2024-11-28",
    ]);
  });

  it("names the holiday of each of the three days before it, across the new year", () => {
    expect(holidayOfEve(dayNumber("2017-11-22"))).toBe(dayNumber("2017-11-23"));
    expect(holidayOfEve(dayNumber("2017-11-20"))).toBe(dayNumber("2017-11-23"));
    expect(holidayOfEve(dayNumber("2017-11-19"))).toBeNull();
    expect(holidayOfEve(dayNumber("2017-11-23"))).toBeNull();
    expect(holidayOfEve(dayNumber("2017-12-31"))).toBe(dayNumber("2018-01-01"));
    expect(holidayOfEve(dayNumber("2017-12-24"))).toBe(dayNumber("2017-12-25"));
  });
});
