import { describe, expect, it } from "vitest";
import { currencyDigits, isKnownCurrency, minorUnit, roundToMinor } from "./currency.js";

describe("currency minor units", () => {
  it("takes the decimals from Intl (CLDR): JPY 0, EUR 2, KWD 3", () => {
    expect([currencyDigits("JPY"), currencyDigits("EUR"), currencyDigits("KWD")]).toEqual([0, 2, 3]);
    expect([minorUnit("JPY"), minorUnit("USD"), minorUnit("KWD")]).toEqual([1, 0.01, 0.001]);
  });

  it("refuses a code Intl does not support, though Intl.NumberFormat would format it with 2 decimals", () => {
    expect(isKnownCurrency("XYZ")).toBe(false);
    expect(() => currencyDigits("XYZ")).toThrow(/unknown currency code "XYZ"/);
    expect(() => roundToMinor(1, "usd")).toThrow(RangeError);
  });

  it("rounds to the minor unit, half away from zero", () => {
    expect(roundToMinor(1821.6, "JPY")).toBe(1822);
    expect(roundToMinor(1.23456, "KWD")).toBe(1.235);
    expect(roundToMinor(18.394, "EUR")).toBe(18.39);
    expect(roundToMinor(-2.5, "JPY")).toBe(-3);
  });
});
