import { currencyDigits } from "./currency.js";

/**
 * Price endings (DESIGN §11): which prices a shop prints. `.dd...` is the trailing minor-unit digits and fits only
 * a currency with that many decimals (".99" fits EUR, not JPY or KWD; ".990" fits KWD); `d...` is the trailing
 * whole-unit digits of a whole price, for any currency ("9": 9, 19, 1999). A product takes the endings that fit its
 * currency; where none fits, every minor unit is printable.
 */
export const PRICE_ENDING = /^(?:\.\d{1,4}|\d{1,4})$/;

/** The endings of a setting or a `products.csv` cell, checked; throws a RangeError naming the bad ending. */
export function parsePriceEndings(endings: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of endings) {
    const ending = raw.trim();
    if (!PRICE_ENDING.test(ending)) {
      throw new RangeError(
        `price ending "${raw}" is neither ".d" (trailing minor-unit digits, e.g. ".99") nor "d" (trailing whole-unit digits, e.g. "9"), with 1 to 4 digits`,
      );
    }
    if (!out.includes(ending)) out.push(ending);
  }
  return out;
}

/**
 * The prices printable in a currency under some endings, as integer minor units: every `m` with
 * `m mod modulus = residue` for one of `classes` (no endings, or none fitting: modulus 1, every minor unit).
 */
export interface PriceFormat {
  readonly currency: string;
  /** Decimals of the currency's minor unit. */
  readonly digits: number;
  readonly classes: readonly { readonly modulus: number; readonly residue: number }[];
}

const formats = new Map<string, PriceFormat>();

/** The printable prices of `currency` under `endings` (null or empty: every minor unit), cached. */
export function priceFormat(currency: string, endings?: readonly string[] | null): PriceFormat {
  const key = `${currency}:${(endings ?? []).join(",")}`;
  const cached = formats.get(key);
  if (cached !== undefined) return cached;
  const digits = currencyDigits(currency);
  const classes = parsePriceEndings(endings ?? []).flatMap((ending) => {
    if (ending.startsWith(".")) {
      const tail = ending.slice(1);
      return tail.length === digits ? [{ modulus: 10 ** digits, residue: Number(tail) }] : [];
    }
    return [{ modulus: 10 ** (ending.length + digits), residue: Number(ending) * 10 ** digits }];
  });
  const format = { currency, digits, classes: classes.length === 0 ? [{ modulus: 1, residue: 0 }] : classes };
  formats.set(key, format);
  return format;
}

const mod = (a: number, m: number): number => ((a % m) + m) % m;

/** Whether `price` is printable: on the minor unit and in one of the format's ending classes. */
export function isPrintable(format: PriceFormat, price: number): boolean {
  const scale = 10 ** format.digits;
  const m = Math.round(price * scale);
  if (Math.abs(m - price * scale) > 1e-6 * Math.max(1, Math.abs(price * scale))) return false;
  return m > 0 && format.classes.some((c) => mod(m - c.residue, c.modulus) === 0);
}

/** The highest printable price at or below `price`; null where none is positive. */
export function printableAtOrBelow(format: PriceFormat, price: number): number | null {
  const scale = 10 ** format.digits;
  const m = Math.floor(price * scale + 1e-6);
  let best = Number.NEGATIVE_INFINITY;
  for (const c of format.classes) best = Math.max(best, m - mod(m - c.residue, c.modulus));
  return best > 0 ? best / scale : null;
}

/** The lowest positive printable price at or above `price`. */
export function printableAtOrAbove(format: PriceFormat, price: number): number {
  const scale = 10 ** format.digits;
  const m = Math.max(1, Math.ceil(price * scale - 1e-6));
  let best = Number.POSITIVE_INFINITY;
  for (const c of format.classes) best = Math.min(best, m + mod(c.residue - m, c.modulus));
  return best / scale;
}

/**
 * The printable price nearest `price` within [lo, hi] (the lower one on a tie); null where no printable price lies
 * in that range.
 */
export function nearestPrintable(
  format: PriceFormat,
  price: number,
  lo = 0,
  hi = Number.POSITIVE_INFINITY,
): number | null {
  const below = printableAtOrBelow(format, Math.min(hi, Math.max(lo, price)));
  const above = printableAtOrAbove(format, Math.max(lo, Math.min(hi, price)));
  const belowInside = insideRange(below, lo, hi);
  const aboveInside = insideRange(above, lo, hi);
  if (belowInside && aboveInside) return price - below <= above - price ? below : above;
  if (belowInside) return below;
  if (aboveInside) return above;
  return null;
}

/** Whether a printable price lies in [lo, hi] (to 1e-9); a module function, not a closure per call: plans call it per row. */
function insideRange(p: number | null, lo: number, hi: number): p is number {
  return p !== null && p >= lo - 1e-9 && p <= hi + 1e-9;
}
