import {
  addDays,
  type CompanyFitReport,
  daysBetween,
  type SalesRow as EngineSalesRow,
  expandGrid,
  type FittedDemand,
  fitDemand,
  type ProblemSetup,
  type RuleParams,
  roundCents,
  ruleParamsFromHistory,
} from "@pricing/engine";
import type { CompanyRow, ProductRow } from "../db/schema.js";
import type { ServerContext } from "../server-context.js";

/** What pricing needs to know about one product on the company's today. */
export interface ProductSnapshot {
  readonly row: ProductRow;
  /** Units on hand at the start of today; null when unlimited. */
  readonly stock: number | null;
  /** Price charged most recently (history), or null. */
  readonly lastPrice: number | null;
  readonly minPrice: number;
  readonly maxPrice: number;
  readonly ruleParams: RuleParams;
  /** The selling problem from today on, without demand. */
  readonly setup: ProblemSetup;
}

export interface CompanySnapshot {
  readonly company: CompanyRow;
  readonly today: string;
  readonly products: readonly ProductSnapshot[];
  readonly history: readonly EngineSalesRow[];
  /** Distinct dates with at least one sales row. */
  readonly historyDays: number;
}

export interface SnapshotOptions {
  /** Selling days priced when a product has no season end. */
  readonly horizonDays: number;
}

/** Relative step of the price grid: 4 % of the base price (about 38 prices between 0.5x and 2x). */
const GRID_STEP = 0.04;
const MAX_HORIZON = 366;

function gridFor(row: ProductRow, minPrice: number, maxPrice: number): number[] {
  let step = GRID_STEP * row.base_price;
  // Neighbouring prices must be within the max daily change of each other, or the policy could get stuck.
  if (row.max_daily_change !== null) step = Math.min(step, row.max_daily_change * minPrice * 0.98);
  step = Math.max(step, 0.01);
  const prices = expandGrid({ min: minPrice, max: maxPrice, step }).filter(
    (p) => p >= minPrice - 1e-9 && p <= maxPrice + 1e-9,
  );
  const withBase = prices.includes(roundCents(row.base_price))
    ? prices
    : [...prices, roundCents(Math.min(maxPrice, Math.max(minPrice, row.base_price)))];
  return [...new Set(withBase)].sort((a, b) => a - b);
}

/**
 * Stock at the start of `today`: the newest sales row that reports stock on hand rolls forward by its units
 * sold, unless the product row (the operator's stock figure) was updated after that day.
 */
function currentStock(row: ProductRow, history: readonly EngineSalesRow[]): number | null {
  if (row.stock === null) return null;
  let newest: EngineSalesRow | undefined;
  for (const r of history) if (r.stock_on_hand !== null && (!newest || r.date > newest.date)) newest = r;
  if (newest && newest.stock_on_hand !== null && newest.date >= row.updated_at.slice(0, 10)) {
    return Math.max(0, newest.stock_on_hand - newest.units_sold);
  }
  return row.stock;
}

export function productSnapshot(
  row: ProductRow,
  history: readonly EngineSalesRow[],
  today: string,
  options: SnapshotOptions,
): ProductSnapshot {
  const minPrice = roundCents(row.min_price ?? 0.5 * row.base_price);
  const maxPrice = roundCents(row.max_price ?? 2 * row.base_price);
  const stock = currentStock(row, history);
  const last = history.length > 0 ? history[history.length - 1] : undefined;
  const lastPrice = last ? last.price : null;
  let horizon = options.horizonDays;
  if (row.season_end !== null) horizon = daysBetween(today, row.season_end) + 1;
  horizon = Math.max(1, Math.min(MAX_HORIZON, horizon));
  const prices = gridFor(row, minPrice, maxPrice);
  const initial =
    row.max_daily_change === null
      ? null
      : Math.min(maxPrice, Math.max(minPrice, lastPrice ?? row.base_price));
  return {
    row,
    stock,
    lastPrice,
    minPrice,
    maxPrice,
    ruleParams: ruleParamsFromHistory(history, row.product_id, row.base_price),
    setup: {
      productId: row.product_id,
      startDate: today,
      horizon,
      prices,
      minPrice,
      maxPrice,
      shutoff: false,
      unitCost: row.unit_cost ?? 0,
      stock,
      maxDailyChange: row.max_daily_change,
      initialPrice: initial,
      distribution: "poisson",
    },
  };
}

/** Whether a product can still sell on `date` (its season has not ended). */
export function sellsOn(product: ProductSnapshot, date: string): boolean {
  return product.row.season_end === null || date <= product.row.season_end;
}

/** Loads a company's products and sales history as of `today` (history strictly before today counts). */
export async function loadCompanySnapshot(
  ctx: ServerContext,
  company: CompanyRow,
  today: string,
  options: SnapshotOptions,
): Promise<CompanySnapshot> {
  const [rows, sales] = await Promise.all([
    ctx.products.listByCompany(company.company_id),
    ctx.sales.list({ companyId: company.company_id, to: addDays(today, -1) }),
  ]);
  const byProduct = new Map<string, EngineSalesRow[]>();
  const dates = new Set<string>();
  const history: EngineSalesRow[] = [];
  for (const s of sales) {
    const row: EngineSalesRow = {
      date: s.date,
      product_id: s.product_id,
      price: s.price,
      units_sold: s.units_sold,
      stock_on_hand: s.stock_on_hand,
    };
    history.push(row);
    dates.add(s.date);
    let list = byProduct.get(s.product_id);
    if (!list) {
      list = [];
      byProduct.set(s.product_id, list);
    }
    list.push(row);
  }
  return {
    company,
    today,
    products: rows.map((r) => productSnapshot(r, byProduct.get(r.product_id) ?? [], today, options)),
    history,
    historyDays: dates.size,
  };
}

/** The demand model fitted to the snapshot's history (products without usable history are left out). */
export function fitSnapshot(snapshot: CompanySnapshot): { fit: FittedDemand; report: CompanyFitReport } {
  const fit = fitDemand(
    snapshot.history,
    snapshot.products.map((p) => ({ productId: p.row.product_id, referencePrice: p.row.base_price })),
  );
  return { fit, report: fit.company };
}
