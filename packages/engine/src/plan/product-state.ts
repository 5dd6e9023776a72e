import { addDays, daysBetween } from "../base/calendar.js";
import { roundToMinor } from "../base/currency.js";
import { nearestPrintable, type PriceFormat, priceFormat } from "../base/price-format.js";
import { catalogGrid, widestGridStep } from "../base/price-grid.js";
import type { ProblemSetup } from "../problem/problem-setup.js";
import { type RuleParams, ruleParamsFromHistory } from "../rule/rule-price.js";
import { observedPriceRange } from "../sales/observed-range.js";
import type { SalesRow } from "../sales/sales-row.js";

/** A product as the catalogue holds it (the server's product row); prices in currency units. */
export interface CatalogProduct {
  readonly product_id: string;
  readonly currency: string;
  readonly base_price: number;
  /** Null: 0. */
  readonly unit_cost: number | null;
  /** Guardrails; null: 0.5x and 2x the base price. */
  readonly min_price: number | null;
  readonly max_price: number | null;
  /** Largest |p_t / p_(t-1) - 1|, a fraction; null = none. */
  readonly max_daily_change: number | null;
  /** Units on hand when the row was last updated; null = unlimited. */
  readonly stock: number | null;
  /** Last selling day (YYYY-MM-DD); null = none. */
  readonly season_end: string | null;
  /** ISO timestamp of the row's last update (a newer stock figure than the history's). */
  readonly updated_at: string;
  /** The price endings that apply to the product (DESIGN §11: its own, else its company's); absent or null: none. */
  readonly price_endings?: readonly string[] | null;
}

/**
 * A partner's override of one product's price over dates (DESIGN §11): a pin (`price`) or a narrowing of the
 * guardrails (`min_price` / `max_price`), in currency units; the server checks it is printable and inside them.
 */
export interface PriceOverride {
  readonly override_id: string;
  /** Inclusive dates. */
  readonly start_date: string;
  readonly end_date: string;
  readonly price: number | null;
  readonly min_price: number | null;
  readonly max_price: number | null;
}

/** What pricing needs to know about one product on a company's today. */
export interface ProductState {
  readonly product: CatalogProduct;
  /** Units on hand at the start of today; null when unlimited. */
  readonly stock: number | null;
  /** Price charged most recently (history), or null. */
  readonly lastPrice: number | null;
  readonly minPrice: number;
  readonly maxPrice: number;
  /** The prices the product may charge: its currency's minor unit and its endings (DESIGN §11). */
  readonly format: PriceFormat;
  readonly ruleParams: RuleParams;
  /**
   * Lowest and highest price (cents) the product's history sold at; `productState` sets it, the base price alone
   * without history. Absent: the plan explains with the base price alone.
   */
  readonly observedPriceRange?: readonly [number, number];
  /** The selling problem from today on, without demand, on the catalogue grid. */
  readonly setup: ProblemSetup;
  /** The partner's overrides of the product, none overlapping another; absent: none. */
  readonly overrides?: readonly PriceOverride[];
  /** Prices the history charged on the `LOWEST_PRICE_DAYS` days before today (the 30-day lowest price's start). */
  readonly recentPrices?: readonly { readonly date: string; readonly price: number }[];
}

/** Days before an item's date its `lowest_price_30d` looks back over (EU Directive 98/6/EC, Art. 6a). */
export const LOWEST_PRICE_DAYS = 30;

export interface ProductStateOptions {
  /** Selling days priced when a product has no season end. */
  readonly horizonDays: number;
}

const MAX_HORIZON = 366;

/** A product's guardrails: its own, else 0.5x and 2x its base price, on its currency's minor unit. */
export function productGuardrails(
  product: Pick<CatalogProduct, "base_price" | "min_price" | "max_price" | "currency">,
): { minPrice: number; maxPrice: number } {
  return {
    minPrice: roundToMinor(product.min_price ?? 0.5 * product.base_price, product.currency),
    maxPrice: roundToMinor(product.max_price ?? 2 * product.base_price, product.currency),
  };
}

/**
 * Stock at the start of `today`: the newest sales row that reports stock on hand rolls forward by its units
 * sold, unless the product row (the operator's stock figure) was updated after that day.
 */
function currentStock(product: CatalogProduct, history: readonly SalesRow[]): number | null {
  if (product.stock === null) return null;
  let newest: { date: string; stock: number; sold: number } | undefined;
  for (const r of history) {
    if (r.stock_on_hand !== null && (newest === undefined || r.date > newest.date)) {
      newest = { date: r.date, stock: r.stock_on_hand, sold: r.units_sold };
    }
  }
  if (newest !== undefined && newest.date >= product.updated_at.slice(0, 10)) {
    return Math.max(0, newest.stock - newest.sold);
  }
  return product.stock;
}

/**
 * A product's pricing state on `today` from its catalogue row and its sales history before today (sorted by
 * date): guardrails (default 0.5x / 2x base, on the currency's minor unit), the printable prices (currency and
 * endings), stock rolled forward from the history, the last price, the rule's parameters, and the selling problem
 * up to the season end (or `horizonDays`, at most a year) on the printable catalogue grid.
 */
export function productState(
  product: CatalogProduct,
  history: readonly SalesRow[],
  today: string,
  options: ProductStateOptions,
): ProductState {
  const currency = product.currency;
  const { minPrice, maxPrice } = productGuardrails(product);
  const endings = product.price_endings ?? null;
  const format = priceFormat(currency, endings);
  const prices = catalogGrid({
    basePrice: product.base_price,
    minPrice,
    maxPrice,
    maxDailyChange: product.max_daily_change,
    currency,
    endings,
  });
  const stock = currentStock(product, history);
  const lastPrice = history.at(-1)?.price ?? null;
  let horizon = options.horizonDays;
  if (product.season_end !== null) horizon = daysBetween(today, product.season_end) + 1;
  horizon = Math.max(1, Math.min(MAX_HORIZON, horizon));
  const limit = product.max_daily_change;
  const observed = observedPriceRange(history, product.product_id);
  // Once per product, not per history row: the nightly batch's worker spent ~15 ms a company on this date string.
  const recentFrom = addDays(today, -LOWEST_PRICE_DAYS);
  return {
    product,
    stock,
    lastPrice,
    minPrice,
    maxPrice,
    format,
    recentPrices: history.flatMap((r) =>
      r.product_id === product.product_id && r.date >= recentFrom && r.date < today
        ? [{ date: r.date, price: r.price }]
        : [],
    ),
    ruleParams: ruleParamsFromHistory(history, product.product_id, product.base_price),
    observedPriceRange:
      observed === null
        ? [product.base_price, product.base_price]
        : [roundToMinor(observed[0], currency), roundToMinor(observed[1], currency)],
    setup: {
      productId: product.product_id,
      startDate: today,
      horizon,
      prices,
      minPrice,
      maxPrice,
      shutoff: false,
      unitCost: product.unit_cost ?? 0,
      stock,
      // Where the endings leave steps wider than the limit, the ending wins (DESIGN §11): the problem takes them.
      maxDailyChange: limit === null ? null : Math.max(limit, widestGridStep(prices)),
      initialPrice:
        limit === null
          ? null
          : (nearestPrintable(format, lastPrice ?? product.base_price, minPrice, maxPrice) ?? minPrice),
      distribution: "poisson",
      overdispersion: 0,
    },
  };
}

/** The override in force on `date`, if any. */
export function overrideOn(state: ProductState, date: string): PriceOverride | undefined {
  return state.overrides?.find((o) => o.start_date <= date && date <= o.end_date);
}

/**
 * The state on a day an override narrows (its `min_price` / `max_price` inside the guardrails): the guardrails
 * narrowed, so the rule and `boundPrice` price inside them. The state itself elsewhere.
 */
export function narrowedState(state: ProductState, override: PriceOverride | undefined): ProductState {
  if (override === undefined || override.price !== null) return state;
  if (override.min_price === null && override.max_price === null) return state;
  return {
    ...state,
    minPrice: Math.max(state.minPrice, override.min_price ?? state.minPrice),
    maxPrice: Math.min(state.maxPrice, override.max_price ?? state.maxPrice),
  };
}

/** Whether a product can still sell on `date` (its season has not ended). */
export function sellsOn(state: ProductState, date: string): boolean {
  return state.product.season_end === null || date <= state.product.season_end;
}

/** The last day the rule paces stock over: the season end, or the problem's horizon from `today`. */
export function seasonLastDay(state: ProductState, today: string): string {
  return state.product.season_end ?? addDays(today, state.setup.horizon - 1);
}
