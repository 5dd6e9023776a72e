import {
  addDays,
  type CatalogProduct,
  type SalesRow as EngineSalesRow,
  type FitSource,
  type PriceOverride,
  type ProductState,
  productState,
} from "@pricing/engine";
import type { ServerContext } from "../context.js";
import type { CompanyRow, OverrideRow, SalesRow } from "../db/schema.js";
import { readEndings } from "../repositories/price-endings-column.js";
import type { CatalogRow } from "../repositories/products.js";
import { companyToday } from "./company-today.js";

export interface CompanySnapshot {
  readonly company: CompanyRow;
  readonly today: string;
  /** Each product's pricing state on `today`, computed by the engine. */
  readonly products: readonly ProductState[];
  readonly history: readonly EngineSalesRow[];
}

/** A stored sales row in the engine's shape (without the company). */
export function engineSalesRow(s: SalesRow): EngineSalesRow {
  return {
    date: s.date,
    product_id: s.product_id,
    price: s.price,
    units_sold: s.units_sold,
    stock_on_hand: s.stock_on_hand,
    promoted: s.promoted,
  };
}

/** A partner's override as the engine's plan takes it. */
function planOverride(row: OverrideRow): PriceOverride {
  return {
    override_id: row.override_id,
    start_date: row.start_date,
    end_date: row.end_date,
    price: row.price,
    min_price: row.min_price,
    max_price: row.max_price,
  };
}

/**
 * The company's products as the engine prices them: each with the price endings that apply to it (its own, else
 * its company's; DESIGN §11), the one place the two are resolved.
 */
export function catalogProducts(company: CompanyRow, rows: readonly CatalogRow[]): CatalogProduct[] {
  const endings = readEndings(company.price_endings);
  return rows.map((r) => ({ ...r, price_endings: r.price_endings ?? endings }));
}

/**
 * Loads a company's products and sales history as of its today (history strictly before today counts), in the
 * engine's shapes. `today` is the operation's, decided once by its caller (a nightly run passes the day it runs
 * for, so midnight passing mid-run cannot split it); by default the clock's date in the company's time zone.
 */
export async function loadCompanySnapshot(
  ctx: ServerContext,
  company: CompanyRow,
  today: string = companyToday(ctx.clock(), company.timezone),
): Promise<CompanySnapshot> {
  const options = { horizonDays: ctx.config.pricing.trainHorizonDays };
  const [rows, sales, overrides] = await Promise.all([
    ctx.repositories.products.listByCompany(company.company_id),
    ctx.repositories.sales.list({ companyId: company.company_id, to: addDays(today, -1) }),
    ctx.repositories.overrides.endingFrom(company.company_id, today),
  ]);
  const byProduct = new Map<string, EngineSalesRow[]>();
  const history: EngineSalesRow[] = [];
  for (const s of sales) {
    const row = engineSalesRow(s);
    history.push(row);
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
    products: catalogProducts(company, rows).map((r) => {
      const state = productState(r, byProduct.get(r.product_id) ?? [], today, options);
      const own = overrides.filter((o) => o.product_id === r.product_id).map(planOverride);
      return own.length === 0 ? state : { ...state, overrides: own };
    }),
    history,
  };
}

/**
 * What the plan's demand model is fitted from (products without usable history are left out of the fit), where
 * the plan needs it; null without history.
 */
export function fitSource(snapshot: CompanySnapshot): FitSource | null {
  if (snapshot.history.length === 0) return null;
  return {
    history: snapshot.history,
    products: snapshot.products.map((p) => ({
      productId: p.product.product_id,
      referencePrice: p.product.base_price,
    })),
  };
}
