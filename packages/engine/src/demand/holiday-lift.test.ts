import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { dayNumber } from "../base/calendar.js";
import { holidayOfEve } from "../base/holiday-calendar.js";
import { samplePoisson } from "../random/random-draws.js";
import { type DaysAndMeans, holidayLift } from "./holiday-lift.js";

/** Products selling `rate` a day through 2017, `lift` times that on holiday eves, and the means of a model without it. */
function company(lift: number, seed: string): DaysAndMeans[] {
  const rng = seedrandom(seed);
  const first = dayNumber("2017-01-01");
  return [8, 12, 20].map((rate) => {
    const day = Int32Array.from({ length: 365 }, (_, i) => first + i);
    const units = Float64Array.from(day, (d) =>
      samplePoisson(rng, rate * (holidayOfEve(d) === null ? 1 : lift)),
    );
    return { day, units, mu: new Float64Array(365).fill(rate) };
  });
}

describe("the holiday-eve lift", () => {
  it("finds a company's lift on the eves of a year's holidays", () => {
    const found = holidayLift(company(1.3, "lift"));
    expect(found.holidays).toBe(7);
    expect(Math.abs(found.logLift - Math.log(1.3))).toBeLessThan(2 * found.stdError);
  });

  it("keeps the usual rate where the eves sell as other days", () => {
    expect(holidayLift(company(1, "none")).logLift).toBe(0);
  });

  it("needs three holidays in the history", () => {
    const short = company(1.3, "short").map((p) => ({
      day: p.day.slice(0, 160),
      units: p.units.slice(0, 160),
      mu: p.mu.slice(0, 160),
    }));
    const found = holidayLift(short);
    expect(found.holidays).toBe(2);
    expect(found.logLift).toBe(0);
  });
});
