import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import { generateMarket, type Market } from "../market/generate-market.js";
import { problemFromTruth } from "../market/problem-from-truth.js";
import type { PlannedPromotion } from "../plan/company-plan.js";
import { type CatalogProduct, type ProductState, productState } from "../plan/product-state.js";
import { trainPolicy } from "../policy/fitted-q.js";
import { trainingDataFromProblems } from "../policy/training-input.js";
import { BERNOULLI, type DemandDistribution } from "../problem/sales-distribution.js";
import type { Exploration } from "./exploration-range.js";
import { planWithLearning } from "./learning-plan.js";
import { onlineLearner } from "./online-learner.js";

/**
 * The nightly plan's rows, pinned: a digest of every row of seeded plans, so a change made for speed (day indices,
 * batched draws, quantiles without every pmf) shows the moment it moves one price, band or flag. The digests were
 * produced by this file's own code on `main` at f2d5217, before the speed-up (`git archive main packages/engine/src`
 * extracted beside the package, this file run there). A change of the learner's model changes them on purpose:
 * regenerate them then by running this file and taking the digests it reports.
 */
const START = "2026-03-02";
const HORIZON = 90;

function market(products: number, promotedShare: number): Market {
  return generateMarket({
    name: `golden-${products}`,
    seed: 7,
    start_date: START,
    horizon: HORIZON,
    history: { days: 365, ...(promotedShare > 0 ? { promoted_share: promotedShare } : {}) },
    company: { count: products, stock_ratio: [0.5, 1.3] },
  });
}

function states(m: Market): ProductState[] {
  return m.products.map((p) => {
    const { setup } = p;
    const catalog: CatalogProduct = {
      product_id: p.productId,
      currency: "EUR",
      base_price: p.referencePrice,
      unit_cost: p.unitCost,
      min_price: setup.minPrice,
      max_price: setup.maxPrice,
      max_daily_change: setup.maxDailyChange,
      stock: setup.stock,
      season_end: addDays(setup.startDate, setup.horizon - 1),
      updated_at: `${START}T00:00:00.000Z`,
    };
    const rows = m.history.filter((r) => r.product_id === p.productId);
    return productState(catalog, rows, START, { horizonDays: HORIZON });
  });
}

/** The learner the backtest builds from the market's whole history (the fitted NB2 unless `distribution`). */
function learnerOf(m: Market, distribution?: DemandDistribution) {
  return onlineLearner({
    history: m.history,
    products: m.products.map((p) => ({ productId: p.productId, referencePrice: p.referencePrice })),
    seed: "golden",
    ...(distribution === undefined ? {} : { distribution }),
  });
}

function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

function plan(m: Market, exploration: Exploration, promotions?: readonly PlannedPromotion[]) {
  return planWithLearning({
    today: START,
    startDate: START,
    endDate: addDays(START, HORIZON - 1),
    products: states(m),
    active: { source: "rule", modelId: null, policy: null },
    history: m.history,
    exploration,
    seed: "golden",
    online: true,
    explain: true,
    ...(promotions === undefined ? {} : { promotions }),
  });
}

describe("the nightly plan, pinned to its digest", () => {
  it("prices a seeded company (cautious) exactly as before", () => {
    const rows = plan(market(8, 0), "cautious");
    expect(rows.length).toBe(8 * HORIZON);
    expect(rows.some((r) => r.exploratory === true)).toBe(true);
    expect(digest(rows)).toBe("79e1b83a7d63f3e8");
  });

  it("prices a promoted company with planned promotions (free) exactly as before", () => {
    const m = market(6, 0.15);
    const promotions = m.products.flatMap((p, i) =>
      Array.from({ length: HORIZON }, (_, d) => d)
        .filter((d) => (d + i) % 11 === 0)
        .map((d) => ({ product_id: p.productId, date: addDays(START, d), promoted: d % 2 === 0 ? 1 : 0.5 })),
    );
    const rows = plan(m, "free", promotions);
    expect(digest(rows)).toBe("8103f79e7ed2e867");
  });

  it("prices with an approved policy where the learner does not (a product without history) exactly as before", async () => {
    const m = market(5, 0);
    const policy = await trainPolicy({
      companyId: "golden",
      products: trainingDataFromProblems(m.products.map((p) => problemFromTruth(p.truth, p.setup))),
      config: { seed: 1, statesPerDay: 4, stepsPerDay: 1, finalSteps: 0 },
    });
    try {
      const unseen = m.products[2]?.productId;
      const history = m.history.filter((r) => r.product_id !== unseen);
      const rows = planWithLearning({
        today: START,
        startDate: START,
        endDate: addDays(START, HORIZON - 1),
        products: states({ ...m, history }),
        active: { source: "approved", modelId: "mdl_golden", policy },
        history,
        exploration: "cautious",
        seed: "golden",
        online: true,
      });
      expect(rows.some((r) => r.product_id === unseen && r.source === "approved")).toBe(true);
      expect(digest(rows)).toBe("5b30f05f14f4328a");
    } finally {
      policy.dispose();
    }
  });

  it("gives the backtest's bands at prices it did not choose exactly as before", () => {
    const m = market(4, 0);
    const learner = learnerOf(m);
    const bands = states(m).flatMap((state) =>
      [0, 1, 17, 45].flatMap((day) =>
        [0.8, 1, 1.25].map((f) =>
          learner.unitsAt(state, addDays(START, day), day, day === 17 ? 3 : Number.POSITIVE_INFINITY, {
            price: state.product.base_price * f,
            promoted: day === 45 ? 1 : 0,
          }),
        ),
      ),
    );
    expect(bands.every((b) => b !== null)).toBe(true);
    expect(digest(bands)).toBe("b02751fa5031ecd2");
  });

  it("gives Bernoulli demand's bands (built from pmfs) exactly as before, at whole and fractional stock", () => {
    const m = market(3, 0);
    const learner = learnerOf(m, BERNOULLI);
    const bands = states(m).flatMap((state) =>
      [0, 5, 30].flatMap((day) =>
        [0.5, 1, 2.5, Number.POSITIVE_INFINITY].map((stock) =>
          learner.unitsAt(state, addDays(START, day), day, stock, {
            price: state.product.base_price,
            promoted: 0,
          }),
        ),
      ),
    );
    expect(bands.every((b) => b !== null)).toBe(true);
    expect(digest(bands)).toBe("de2993918a083ade");
  });
});
