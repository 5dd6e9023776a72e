import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isPrintable,
  nearestPrintable,
  parsePriceEndings,
  priceFormat,
  printableAtOrAbove,
  printableAtOrBelow,
} from "./price-format.js";

describe("price endings (DESIGN §11)", () => {
  it("parses .d and d endings and refuses anything else, naming the ending", () => {
    expect(parsePriceEndings([".99", " .49", "9", ".99"])).toEqual([".99", ".49", "9"]);
    expect(() => parsePriceEndings(["99c"])).toThrow(/price ending "99c"/);
    expect(() => parsePriceEndings([".12345"])).toThrow(RangeError);
    expect(() => parsePriceEndings([""])).toThrow(RangeError);
  });

  it("applies a minor-unit ending only to a currency with that many decimals", () => {
    const eur = priceFormat("EUR", [".99"]);
    expect(isPrintable(eur, 18.99)).toBe(true);
    expect(isPrintable(eur, 18.39)).toBe(false);
    // JPY has no decimals: ".99" does not fit, every yen is printable.
    expect(isPrintable(priceFormat("JPY", [".99"]), 1822)).toBe(true);
    expect(isPrintable(priceFormat("JPY", [".99"]), 1821.6)).toBe(false);
    expect(isPrintable(priceFormat("KWD", [".990"]), 2.99)).toBe(true);
    expect(isPrintable(priceFormat("KWD", [".990"]), 2.995)).toBe(false);
  });

  it("reads a whole-unit ending as the last digits of a whole price, in any currency", () => {
    const jpy = priceFormat("JPY", ["80", "9"]);
    expect([1980, 1999, 1989, 9].map((p) => isPrintable(jpy, p))).toEqual([true, true, true, true]);
    expect(isPrintable(jpy, 1985)).toBe(false);
    const eur = priceFormat("EUR", ["9"]);
    expect(isPrintable(eur, 19)).toBe(true);
    expect(isPrintable(eur, 19.5)).toBe(false);
    expect(printableAtOrAbove(eur, 10)).toBe(19);
    expect(printableAtOrBelow(eur, 18.99)).toBe(9);
  });

  it("finds the nearest printable price inside a range, null where none lies in it", () => {
    const eur = priceFormat("EUR", [".49", ".99"]);
    expect(nearestPrintable(eur, 18.3)).toBe(18.49);
    expect(nearestPrintable(eur, 18.2)).toBe(17.99);
    expect(nearestPrintable(eur, 18.2, 18.1, 18.45)).toBeNull();
    expect(nearestPrintable(eur, 30, 18.1, 19)).toBe(18.99);
  });

  it("keeps every price it returns printable and on the right side (property)", () => {
    const cases = fc.constantFrom(
      ["JPY", []],
      ["JPY", ["9"]],
      ["USD", []],
      ["USD", [".99"]],
      ["EUR", [".49", ".99"]],
      ["KWD", [".990", ".500"]],
      ["KWD", ["5"]],
    ) as fc.Arbitrary<[string, string[]]>;
    fc.assert(
      fc.property(cases, fc.double({ min: 0.5, max: 5000, noNaN: true }), ([currency, endings], x) => {
        const format = priceFormat(currency, endings);
        const up = printableAtOrAbove(format, x);
        const down = printableAtOrBelow(format, x);
        expect(isPrintable(format, up)).toBe(true);
        expect(up).toBeGreaterThanOrEqual(x - 1e-9);
        if (down !== null) {
          expect(isPrintable(format, down)).toBe(true);
          expect(down).toBeLessThanOrEqual(x + 1e-9);
        }
        const near = nearestPrintable(format, x);
        expect(near === up || near === down).toBe(true);
      }),
      { numRuns: 500, seed: 11 },
    );
  });
});
