import type { PolicyArtifact } from "../../artifact/policy-artifact.js";
import { checkPolicyArtifact } from "../../artifact/policy-artifact.js";
import { addDays } from "../../base/calendar.js";
import { generateMarket } from "../../market/generate-market.js";
import { type CatalogProduct, productState } from "../../plan/product-state.js";
import type { PlanArtifact, PlanJob } from "../plan-job.js";

export const TODAY = "2026-01-05";

/** A job starting on this date ends the test's crashing planning thread (`exiting-plan-thread.ts`). */
export const EXIT_DATE = "1999-09-09";
/** A job starting on this date keeps that thread busy for ever. */
export const HANG_DATE = "1999-10-10";

/** A small shop with price-varied history: three products, one with tight stock. */
export const market = generateMarket({
  name: "plan-pool",
  seed: 11,
  start_date: TODAY,
  horizon: 14,
  history: { days: 60, price_variation: 0.15, change_every_days: 7 },
  products: [0, 1, 2].map((i) => ({
    product_id: `p${i}`,
    reference_price: 10 + 5 * i,
    unit_cost: 3,
    ...(i === 0 ? { stock: 30 } : {}),
    demand: { family: "constant_elasticity" as const, base_rate: 4 + i, elasticity: 1.8 },
  })),
});

const catalog: CatalogProduct[] = market.products.map((p) => ({
  product_id: p.productId,
  currency: "EUR",
  base_price: p.referencePrice,
  unit_cost: 3,
  min_price: null,
  max_price: null,
  max_daily_change: null,
  stock: p.setup.stock,
  season_end: p.setup.stock === null ? null : addDays(p.setup.startDate, p.setup.horizon - 1),
  updated_at: "2025-01-01T00:00:00.000Z",
}));

/** The shop's job from `TODAY` over `days` days, on the rule. */
export function ruleJob(days = 20): PlanJob {
  const products = catalog.map((c) =>
    productState(
      c,
      market.history.filter((r) => r.product_id === c.product_id),
      TODAY,
      { horizonDays: 14 },
    ),
  );
  const endDate = addDays(TODAY, days - 1);
  return {
    today: TODAY,
    startDate: TODAY,
    endDate,
    products,
    active: { source: "rule", modelId: null, artifact: null },
    fit: {
      history: market.history,
      products: catalog.map((c) => ({ productId: c.product_id, referencePrice: c.base_price })),
    },
  };
}

export function planArtifact(modelId: string, artifact: PolicyArtifact): PlanArtifact {
  return { key: `${modelId}:test`, manifest: checkPolicyArtifact(artifact), weights: artifact.weights };
}

/** The same job served by an artifact from the approved slot. */
export function policyJob(modelId: string, artifact: PolicyArtifact, days = 20): PlanJob {
  return {
    ...ruleJob(days),
    active: { source: "approved", modelId, artifact: planArtifact(modelId, artifact) },
  };
}
