import { type DemandCurve, demandCurvesInWorker } from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "../services/company-lookup.js";
import { loadCompanySnapshot } from "../services/company-snapshot.js";
import { companyToday } from "../services/company-today.js";

/** Companies whose curves are kept (the most recently asked for). */
const COMPANIES_KEPT = 16;

/** One product's demand curve as the console's JSON carries it (DESIGN §10). */
export interface DemandCurveView {
  company_id: string;
  product_id: string;
  date: string;
  unit_cost: number;
  observed_price_range: [number, number] | null;
  elasticity: number | null;
  elasticity_se: number | null;
  points: {
    price: number;
    expected_units: number;
    expected_units_p10: number;
    expected_units_p90: number;
    expected_margin: number;
    margin_p10: number;
    margin_p90: number;
  }[];
  observed: { price: number; days: number; mean_units: number }[];
}

function toView(companyId: string, curve: DemandCurve): DemandCurveView {
  return {
    company_id: companyId,
    product_id: curve.productId,
    date: curve.date,
    unit_cost: curve.unitCost,
    observed_price_range:
      curve.observedPriceRange === null ? null : [curve.observedPriceRange[0], curve.observedPriceRange[1]],
    elasticity: curve.elasticity,
    elasticity_se: curve.elasticityStdError,
    points: curve.points.map((p) => ({
      price: p.price,
      expected_units: p.expectedUnits,
      expected_units_p10: p.unitsP10,
      expected_units_p90: p.unitsP90,
      expected_margin: p.expectedMargin,
      margin_p10: p.marginP10,
      margin_p90: p.marginP90,
    })),
    observed: curve.observed.map((o) => ({ price: o.price, days: o.days, mean_units: o.meanUnits })),
  };
}

interface Memo {
  key: string;
  curves: Promise<Map<string, DemandCurve>>;
}

export interface DemandCurveSource {
  /** One product's curve: 404 `company_not_found`, `not_found` for a product the company does not have. */
  curve(companyId: string, productId: string): Promise<DemandCurveView>;
}

/**
 * The console's demand curves: the engine's `demandCurves` over the company's snapshot, in a fresh worker thread
 * (0.3-0.6 s for a 6-product company at a load average of 10, since the fit stopped loading mathjs, which alone
 * took 1.3-1.7 s to load in a fresh thread there; the API's event loop never waits on it), every product at once, kept while the company's day, exploration setting, sales
 * and catalogue are unchanged, so picking another product answers from memory. Requests that ask while the curves
 * are computed share them. One computation runs at a time, so operators opening many companies at once take one
 * core, not all of them.
 */
export function createDemandCurveSource(ctx: ServerContext): DemandCurveSource {
  const memos = new Map<string, Memo>();
  let running: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(task: () => Promise<T>): Promise<T> => {
    const next = running.then(task, task);
    running = next.catch(() => undefined);
    return next;
  };
  return {
    async curve(companyId, productId) {
      const company = await findCompany(ctx, companyId);
      const today = companyToday(ctx.clock(), company.timezone);
      const [sales, products] = await Promise.all([
        ctx.repositories.sales.count(companyId),
        ctx.repositories.products.listByCompany(companyId),
      ]);
      const catalogue = products.map((p) => p.updated_at).sort();
      const key = JSON.stringify([
        today,
        company.exploration,
        company.force_rule,
        sales,
        products.length,
        catalogue.at(-1),
      ]);
      let memo = memos.get(companyId);
      memos.delete(companyId);
      if (memo === undefined || memo.key !== key) {
        const curves = oneAtATime(async () => {
          const snapshot = await loadCompanySnapshot(ctx, company);
          const list = await demandCurvesInWorker({
            today: snapshot.today,
            products: snapshot.products,
            history: snapshot.history,
            exploration: company.exploration,
            // As `planCompany` plans: the learner's seed, and no learner under the kill switch.
            seed: company.company_id,
            online: company.force_rule !== 1,
          });
          return new Map(list.map((c) => [c.productId, c]));
        });
        memo = { key, curves };
        const made = memo;
        // A failed computation is not kept: the next request computes again.
        curves.catch(() => {
          if (memos.get(companyId) === made) memos.delete(companyId);
        });
      }
      // Most recently asked for last: the first is the one to drop.
      memos.set(companyId, memo);
      for (const oldest of memos.keys()) {
        if (memos.size <= COMPANIES_KEPT) break;
        memos.delete(oldest);
      }
      const found = (await memo.curves).get(productId);
      if (found === undefined)
        throw new ApiError("not_found", `Company ${companyId} has no product ${productId}.`);
      return toView(companyId, found);
    },
  };
}
