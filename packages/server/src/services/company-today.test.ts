import { describe, expect, it } from "vitest";
import { companyToday } from "./company-today.js";

describe("companyToday", () => {
  it("is the calendar date in the company's time zone, not UTC's", () => {
    const at = new Date("2026-03-09T02:00:00Z");
    expect(companyToday(at, "UTC")).toBe("2026-03-09");
    expect(companyToday(at, "Pacific/Auckland")).toBe("2026-03-09");
    expect(companyToday(at, "America/Los_Angeles")).toBe("2026-03-08");
    expect(companyToday(new Date("2026-03-09T23:30:00Z"), "Europe/Berlin")).toBe("2026-03-10");
  });
});
