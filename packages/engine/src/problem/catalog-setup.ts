import { expandGrid, roundCents } from "../base/price-grid.js";
import type { ProblemSetup } from "./problem-setup.js";

/** A product as the catalogue (`products.csv`) describes it; prices in currency units. */
export interface CatalogProduct {
  readonly productId: string;
  readonly basePrice: number;
  /** Default 0. */
  readonly unitCost?: number;
  /** Guardrails; default 0.5x and 2x the base price. */
  readonly minPrice?: number;
  readonly maxPrice?: number;
  /** Fraction, e.g. 0.1; null/absent = none. */
  readonly maxDailyChange?: number | null;
  /** Units on hand now; null/absent = unlimited. */
  readonly stock?: number | null;
}

export interface CatalogSetupOptions {
  /** First day priced (YYYY-MM-DD) and number of days (e.g. up to the season end). */
  readonly startDate: string;
  readonly horizon: number;
  /** Price in force yesterday (for the max daily change); default the base price. */
  readonly lastPrice?: number | null;
  /** Grid step as a fraction of the base price (default 0.02); narrowed so one step fits the max daily change. */
  readonly gridStep?: number;
  readonly shutoff?: boolean;
  readonly distribution?: "poisson" | "bernoulli";
}

/**
 * The selling problem of a catalogue product (without demand): a price grid from min to max price that contains
 * the base price, with steps small enough for the max daily change. Combine with `problemFromFit`.
 */
export function setupFromCatalog(product: CatalogProduct, options: CatalogSetupOptions): ProblemSetup {
  const base = product.basePrice;
  const minPrice = product.minPrice ?? roundCents(0.5 * base);
  const maxPrice = product.maxPrice ?? roundCents(2 * base);
  if (!(base > 0) || !(minPrice > 0) || minPrice > maxPrice) {
    throw new Error(
      `product ${product.productId}: need 0 < min_price <= max_price and a positive base price`,
    );
  }
  const limit = product.maxDailyChange ?? null;
  const step = (options.gridStep ?? 0.02) * base;
  const anchor = Math.min(Math.max(base, minPrice), maxPrice);
  const prices = expandGrid([...expandGrid({ min: minPrice, max: maxPrice, step }), anchor, maxPrice]).filter(
    (p) => p >= minPrice && p <= maxPrice,
  );
  if (limit !== null) fillGaps(prices, limit, product.productId);
  return {
    productId: product.productId,
    startDate: options.startDate,
    horizon: options.horizon,
    prices,
    minPrice,
    maxPrice,
    shutoff: options.shutoff ?? false,
    unitCost: product.unitCost ?? 0,
    stock: product.stock ?? null,
    maxDailyChange: limit,
    initialPrice: limit === null ? null : (options.lastPrice ?? base),
    distribution: options.distribution ?? "poisson",
  };
}

/** Inserts cents-rounded midpoints until every step of the ascending grid is within the max daily change. */
function fillGaps(prices: number[], limit: number, productId: string): void {
  for (let i = 0; i + 1 < prices.length; ) {
    const lo = prices[i]!;
    const hi = prices[i + 1]!;
    if (hi / lo - 1 <= limit) {
      i++;
      continue;
    }
    const mid = roundCents((lo + hi) / 2);
    if (!(mid > lo && mid < hi)) {
      throw new Error(`product ${productId}: max daily change too small for a cents grid at ${lo}`);
    }
    prices.splice(i + 1, 0, mid);
  }
}
