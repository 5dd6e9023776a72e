import {
  addDays,
  type CompanyFitReport,
  type SalesRow as EngineSalesRow,
  type FittedDemand,
  fitDemand,
  type ProductState,
  type ProductStateOptions,
  productState,
} from "@pricing/engine";
import type { CompanyRow } from "../db/schema.js";
import type { ServerContext } from "../server-context.js";

export interface CompanySnapshot {
  readonly company: CompanyRow;
  readonly today: string;
  /** Each product's pricing state on `today`, computed by the engine. */
  readonly products: readonly ProductState[];
  readonly history: readonly EngineSalesRow[];
  /** Distinct dates with at least one sales row. */
  readonly historyDays: number;
}

/** Loads a company's products and sales history as of `today` (history strictly before today counts). */
export async function loadCompanySnapshot(
  ctx: ServerContext,
  company: CompanyRow,
  today: string,
  options: ProductStateOptions,
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
    products: rows.map((r) => productState(r, byProduct.get(r.product_id) ?? [], today, options)),
    history,
    historyDays: dates.size,
  };
}

/** The demand model fitted to the snapshot's history (products without usable history are left out). */
export function fitSnapshot(snapshot: CompanySnapshot): { fit: FittedDemand; report: CompanyFitReport } {
  const fit = fitDemand(
    snapshot.history,
    snapshot.products.map((p) => ({ productId: p.product.product_id, referencePrice: p.product.base_price })),
  );
  return { fit, report: fit.company };
}
