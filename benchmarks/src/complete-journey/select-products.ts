import { dailyPrices, type ProductDays } from "./chain-sales.js";

/** The catalogue fields the selection and the product names read. */
export interface ProductInfo {
  department: string | null;
  brand: string | null;
  category: string | null;
  type: string | null;
  packageSize: string | null;
}

/**
 * Which products enter the extraction, in order of units sold:
 * - `departments`: packaged goods sold by the piece (the panel's GROCERY and DRUG GM departments; produce, meat,
 *   deli, bakery counters and fuel are priced by weight or volume, so paid value / units is not a shelf price);
 * - `minSellingShare`: sold on at least this share of the chain's open days (a daily model needs daily sales);
 * - `minPriceSpread`: the 90th percentile of its daily price at least this multiple of the 10th (prices that
 *   moved, so the price effect is identifiable);
 * - `products`: how many of the busiest to keep (all that pass when undefined).
 */
export interface SelectionRule {
  departments: readonly string[];
  minSellingShare: number;
  minPriceSpread: number;
  products?: number;
}

export const DEFAULT_SELECTION: SelectionRule = {
  departments: ["GROCERY", "DRUG GM"],
  minSellingShare: 0.7,
  minPriceSpread: 1.1,
};

export interface SelectedProduct {
  productId: number;
  info: ProductInfo;
  units: number;
  sellingShare: number;
  priceSpread: number;
  /** Daily price on each open day (see `dailyPrices`). */
  prices: number[];
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function selectProducts(
  products: ReadonlyMap<number, ProductDays>,
  info: ReadonlyMap<number, ProductInfo>,
  openDays: readonly number[],
  rule: SelectionRule,
): SelectedProduct[] {
  const passed: SelectedProduct[] = [];
  for (const [productId, days] of products) {
    const meta = info.get(productId);
    if (!meta?.department || !rule.departments.includes(meta.department)) continue;
    const selling = openDays.filter((d) => days.units[d]! > 0);
    const sellingShare = selling.length / openDays.length;
    if (sellingShare < rule.minSellingShare) continue;
    const sold = selling.map((d) => days.value[d]! / days.units[d]!).sort((a, b) => a - b);
    const priceSpread = quantile(sold, 0.9) / quantile(sold, 0.1);
    if (!(priceSpread >= rule.minPriceSpread)) continue;
    const prices = dailyPrices(days, openDays);
    if (!prices) continue;
    const units = openDays.reduce((n, d) => n + days.units[d]!, 0);
    passed.push({ productId, info: meta, units, sellingShare, priceSpread, prices });
  }
  passed.sort((a, b) => b.units - a.units || a.productId - b.productId);
  return rule.products === undefined ? passed : passed.slice(0, rule.products);
}

/** A readable product name from the catalogue: type, package size and brand (e.g. "SHREDDED CHEESE 8 OZ (National)"). */
export function productName(productId: number, info: ProductInfo): string {
  const what = [info.type ?? info.category ?? `product ${productId}`, info.packageSize]
    .filter(Boolean)
    .join(" ")
    .replace(/\s+/g, " ");
  return info.brand ? `${what} (${info.brand})` : what;
}
