/**
 * ISO 4217 currencies as Node's `Intl` knows them (CLDR): the minor unit every price of a product is rounded to.
 * The one home of "how many decimals does this currency print" (DESIGN §11).
 */

const digitsByCode = new Map<string, number>();
let supported: ReadonlySet<string> | undefined;

/** Whether `code` is a currency `Intl` supports (`Intl.supportedValuesOf("currency")`). */
export function isKnownCurrency(code: string): boolean {
  supported ??= new Set(Intl.supportedValuesOf("currency"));
  return supported.has(code);
}

/**
 * Decimals of `code`'s minor unit (JPY 0, EUR 2, KWD 3), cached per code. Throws a RangeError for a code `Intl` does
 * not support: `Intl.NumberFormat` itself formats any three letters with 2 decimals, which would price an unknown
 * currency in made-up cents.
 */
export function currencyDigits(code: string): number {
  const cached = digitsByCode.get(code);
  if (cached !== undefined) return cached;
  if (!isKnownCurrency(code)) throw new RangeError(`unknown currency code "${code}"`);
  const digits = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions()
    .maximumFractionDigits;
  if (digits === undefined) throw new RangeError(`currency "${code}" has no minor unit`);
  digitsByCode.set(code, digits);
  return digits;
}

/** `price` (currency units) rounded to `currency`'s minor unit, half away from zero. */
export function roundToMinor(price: number, currency: string): number {
  const scale = 10 ** currencyDigits(currency);
  return Math.sign(price) * (Math.round(Math.abs(price) * scale) / scale);
}

/** One minor unit of `currency`, in currency units (JPY 1, EUR 0.01, KWD 0.001). */
export function minorUnit(currency: string): number {
  return 10 ** -currencyDigits(currency);
}
