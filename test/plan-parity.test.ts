import {
  addDays,
  checkPolicyArtifact,
  createPlanPool,
  loadPolicyArtifact,
  type PlanJob,
  type PlannedPrice,
  productState,
  runPlanJob,
  type SalesRow,
} from "@pricing/engine";
import { type CatalogRow, companyToday } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

const V2 = "/public/v1/v2";
const COMPANY = "parity";
let h: V2Harness;
let token: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z");
  await h.seedCompany(COMPANY, { products: 3, tightStock: true });
  token = await h.token(await h.partner([COMPANY]));
});

afterAll(async () => {
  await h?.destroy();
});

/**
 * The company's plan job built directly from the rows in the server's SQLite file, the clock and the artifact the
 * store holds: no server pricing code involved.
 */
async function engineJob(modelId: string | null, startDate: string, endDate: string): Promise<PlanJob> {
  const { companies, products: productRows, sales: salesRows } = h.ctx.repositories;
  const company = await companies.get(COMPANY);
  if (!company) throw new Error("no company");
  const today = companyToday(h.now(), company.timezone);
  const products: CatalogRow[] = await productRows.listByCompany(COMPANY);
  const sales = await salesRows.list({ companyId: COMPANY });
  const history: SalesRow[] = sales
    .filter((s) => s.date < today)
    .map((s) => ({
      date: s.date,
      product_id: s.product_id,
      price: s.price,
      units_sold: s.units_sold,
      stock_on_hand: s.stock_on_hand,
    }));
  const states = products.map((p) =>
    productState(
      p,
      history.filter((s) => s.product_id === p.product_id),
      today,
      { horizonDays: TEST_SETTINGS.trainHorizonDays ?? 0 },
    ),
  );
  const fit = {
    history,
    products: products.map((p) => ({ productId: p.product_id, referencePrice: p.base_price })),
  };
  // The company's defaults: exploration cautious, the online learner on, seeded by the company id.
  const learning = { history, exploration: company.exploration, seed: COMPANY, online: true };
  const job = { today, startDate, endDate, products: states, fit, learning };
  if (modelId === null) return { ...job, active: { source: "rule", modelId: null, artifact: null } };
  const artifact = await h.ctx.policies.store.loadArtifact(COMPANY, modelId);
  return {
    ...job,
    active: {
      source: "approved",
      modelId,
      artifact: { key: modelId, manifest: checkPolicyArtifact(artifact), weights: artifact.weights },
    },
  };
}

/** The job planned in this thread, as the server did before its planning threads. */
async function planHere(job: PlanJob): Promise<PlannedPrice[]> {
  const policy = job.active.artifact === null ? null : await loadPolicyArtifact(job.active.artifact);
  try {
    return runPlanJob(job, policy);
  } finally {
    policy?.dispose();
  }
}

/** The engine's plan in this thread, after checking that a planning thread plans the same job identically. */
async function enginePlan(
  modelId: string | null,
  startDate: string,
  endDate: string,
): Promise<PlannedPrice[]> {
  const job = await engineJob(modelId, startDate, endDate);
  const here = await planHere(job);
  const pool = createPlanPool({ size: 1 });
  try {
    expect(await pool.plan(job)).toEqual(here);
  } finally {
    await pool.close();
  }
  // The API's items say null where the plan gave no band, flag or override.
  return here.map((r) => ({
    ...r,
    expected_units_p10: r.expected_units_p10 ?? null,
    expected_units_p90: r.expected_units_p90 ?? null,
    exploratory: r.exploratory ?? null,
    override_id: r.override_id ?? null,
  })) as PlannedPrice[];
}

/** A dry-run compute from tomorrow to past the policy's horizon (so both sources show up). */
async function apiPlan(): Promise<{ start: string; end: string; recommendations: PlannedPrice[] }> {
  const today = companyToday(h.now(), "UTC");
  const range = { start: addDays(today, 1), end: addDays(today, (TEST_SETTINGS.trainHorizonDays ?? 0) + 4) };
  const res = await h.post(`${V2}/recommendations/compute`, token, {
    company_id: COMPANY,
    dry_run: true,
    start_date: range.start,
    end_date: range.end,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { recommendations: PlannedPrice[] };
  return { ...range, recommendations: body.recommendations };
}

describe("the API serves the engine's plan, planned in a thread as in the caller's", () => {
  it("prices identically with the rule, then with the approved artifact, on later days too", async () => {
    const ruled = await apiPlan();
    expect(ruled.recommendations.length).toBeGreaterThan(0);
    expect(ruled.recommendations.every((r) => r.source === "rule")).toBe(true);
    expect(ruled.recommendations).toEqual(await enginePlan(null, ruled.start, ruled.end));

    const trained = await h.post(`${V2}/model/train`, token, { company_id: COMPANY, auto_approve: true });
    expect(trained.status).toBe(200);
    const { model_id: modelId } = (await trained.json()) as { model_id: string };
    for (const now of ["2026-03-10T03:00:00Z", "2026-03-13T03:00:00Z"]) {
      h.setNow(now);
      token = await h.token(await h.partner([COMPANY]));
      const served = await apiPlan();
      expect(served.recommendations.some((r) => r.source === "approved" && r.model_id === modelId)).toBe(
        true,
      );
      const direct = await enginePlan(modelId, served.start, served.end);
      expect(
        served.recommendations.map((r) => [r.date, r.product_id, r.price, r.expected_units, r.source]),
      ).toEqual(direct.map((r) => [r.date, r.product_id, r.price, r.expected_units, r.source]));
      expect(served.recommendations).toEqual(direct);
    }
  });
});
