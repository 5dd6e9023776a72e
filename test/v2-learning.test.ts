import { addDays, passesSafetyGate } from "@pricing/engine";
import { companyToday, runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cliWithEnv } from "./http-harness.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

/**
 * DESIGN §8 through the real server and the real CLI on the same SQLite file: the company settings, the kill
 * switch, exploration `off`, every item's p10/p90 and `exploratory`, old rows without them, and the nightly
 * refresh with and without auto-approval.
 */
const V2 = "/public/v1/v2";
const COMPANY = "learner";
let h: V2Harness;
let token: string;

interface Item {
  product_id: string;
  date: string;
  price: number;
  rule_price: number;
  expected_units: number;
  expected_units_p10: number | null;
  expected_units_p90: number | null;
  exploratory: boolean | null;
  source: string;
  model_id: string | null;
}

function pricing(...args: string[]): Promise<CliResult> {
  return cliWithEnv({}, h.dataDir, ...args);
}

async function compute(
  dryRun = true,
): Promise<{ source: string; recommendations: Item[]; run: { run_id: string } | null }> {
  const res = await h.post(`${V2}/recommendations/compute`, token, { company_id: COMPANY, dry_run: dryRun });
  expect(res.status).toBe(200);
  return (await res.json()) as { source: string; recommendations: Item[]; run: { run_id: string } | null };
}

async function model(): Promise<{
  source: string;
  model_id: string | null;
  fallback_reason: string | null;
  latest: { model_id: string; version: number; metrics: Record<string, number> } | null;
  approved: { model_id: string; version: number } | null;
}> {
  const res = await h.get(`${V2}/model?company_id=${COMPANY}`, token);
  expect(res.status).toBe(200);
  return res.json() as never;
}

/** Each product's observed price range in the history before the company's today. */
async function observedRanges(): Promise<Map<string, [number, number]>> {
  const today = companyToday(h.now(), "UTC");
  const rows = await h.ctx.repositories.sales.list({ companyId: COMPANY, to: addDays(today, -1) });
  const out = new Map<string, [number, number]>();
  for (const r of rows) {
    const [lo, hi] = out.get(r.product_id) ?? [r.price, r.price];
    out.set(r.product_id, [Math.min(lo, r.price), Math.max(hi, r.price)]);
  }
  return out;
}

/** The day before the company's today sold as the day before it did: new sales for the nightly refresh. */
async function importYesterday(): Promise<void> {
  const today = companyToday(h.now(), "UTC");
  const yesterday = addDays(today, -1);
  const rows = await h.ctx.repositories.sales.list({ companyId: COMPANY, to: addDays(yesterday, -1) });
  const last = new Map(rows.map((r) => [r.product_id, r]));
  await h.ctx.db
    .insertInto("sales")
    .values([...last.values()].map((r) => ({ ...r, date: yesterday })))
    .execute();
}

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z");
  await h.seedCompany(COMPANY, { products: 3, tightStock: true });
  token = await h.token(await h.partner([COMPANY]));
});

afterAll(async () => {
  await h?.destroy();
});

describe("company learning settings", () => {
  it("default to cautious, auto-approve on, rule not forced, and change through the CLI only to valid values", async () => {
    const shown = await pricing("company", "show", "--id", COMPANY);
    expect(shown.code).toBe(0);
    expect(shown.json).toMatchObject({
      exploration: "cautious",
      auto_approve_updates: true,
      force_rule: false,
    });

    const bad = await pricing("company", "update", "--id", COMPANY, "--exploration", "wild");
    expect(bad.code).not.toBe(0);
    const badBool = await pricing("company", "update", "--id", COMPANY, "--force-rule", "yes");
    expect(badBool.code).not.toBe(0);
    const unknown = await pricing("company", "update", "--id", "nobody", "--force-rule", "true");
    expect(unknown.code).not.toBe(0);
    const listed = await pricing("company", "list");
    expect((listed.json as { companies: unknown[] }).companies).toEqual([
      expect.objectContaining({ company_id: COMPANY, exploration: "cautious", force_rule: false }),
    ]);
  });
});

describe("every item's uncertainty", () => {
  it("carries p10 <= expected_units <= p90 and exploratory, with the rule and with a model", async () => {
    const ruled = await compute();
    expect(ruled.source).toBe("rule");
    const check = (items: Item[]) => {
      expect(items.length).toBeGreaterThan(0);
      for (const r of items) {
        expect(typeof r.exploratory).toBe("boolean");
        expect(r.expected_units_p10).not.toBeNull();
        expect(r.expected_units_p10 ?? Number.NaN).toBeLessThanOrEqual(r.expected_units);
        expect(r.expected_units_p90 ?? Number.NaN).toBeGreaterThanOrEqual(r.expected_units);
      }
    };
    check(ruled.recommendations);
    // No model yet: the online learner prices from the history the rule sold (the minimum history is the
    // network's), its rows sourced as the rule with no model id.
    expect(ruled.recommendations.every((r) => r.source === "rule" && r.model_id === null)).toBe(true);
    expect(ruled.recommendations.some((r) => r.price !== r.rule_price)).toBe(true);

    const trained = await h.post(`${V2}/model/train`, token, { company_id: COMPANY, auto_approve: true });
    expect(trained.status).toBe(200);
    const body = (await trained.json()) as {
      metrics: { upliftPct: number; upliftIntervalPct: { low: number; high: number } | null };
    };
    // The uplift with its interval over the plausible models around it.
    const interval = body.metrics.upliftIntervalPct;
    expect(interval).not.toBeNull();
    expect(interval?.low).toBeLessThanOrEqual(body.metrics.upliftPct);
    expect(interval?.high).toBeGreaterThanOrEqual(body.metrics.upliftPct);
    const served = await compute();
    expect(served.source).toBe("approved");
    check(served.recommendations);
    // The narrow demo history leaves the learner some width to show interest in: the bands are not all points.
    expect(
      served.recommendations.some((r) => (r.expected_units_p90 ?? 0) > (r.expected_units_p10 ?? 0)),
    ).toBe(true);
  });

  it("reads a run persisted before the fields existed with nulls", async () => {
    const persisted = await compute(false);
    const stored = await h.ctx.repositories.runs.atOffset(COMPANY, 0);
    expect(stored?.run_id).toBe(persisted.run?.run_id);
    if (!stored) return;
    // What migrations 0005 and 0019 make of the rows they find: the run's items with the added fields null.
    const items = await h.ctx.repositories.runs.recommendations(stored.run_id, {});
    const old = await h.ctx.repositories.runs.insert(
      {
        companyId: COMPANY,
        kind: "on_demand",
        asOf: stored.as_of,
        createdAt: new Date(Date.parse(stored.created_at) + 1).toISOString(),
        source: stored.source,
        modelId: stored.model_id,
        startDate: stored.start_date,
        endDate: stored.end_date,
        recommendations: items.map((r) => ({
          ...r,
          expected_units_p10: null,
          expected_units_p90: null,
          exploratory: null,
        })),
      },
      10,
    );
    const runId = old?.run_id ?? "";
    const res = await h.get(`${V2}/recommendations?company_id=${COMPANY}`, token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { run: { run_id: string }; recommendations: Item[] };
    expect(body.run.run_id).toBe(runId);
    expect(body.recommendations.length).toBe(persisted.recommendations.length);
    for (const r of body.recommendations) {
      expect(r).toMatchObject({ expected_units_p10: null, expected_units_p90: null, exploratory: null });
    }
  });
});

describe("exploration off", () => {
  it("keeps every price inside the range the history has seen, none exploratory", async () => {
    expect((await pricing("company", "update", "--id", COMPANY, "--exploration", "off")).code).toBe(0);
    const served = await compute();
    const ranges = await observedRanges();
    expect(served.recommendations.some((r) => r.source === "approved")).toBe(true);
    for (const r of served.recommendations) {
      const [lo, hi] = ranges.get(r.product_id) ?? [Number.NaN, Number.NaN];
      expect(r.price, `${r.product_id} ${r.date}`).toBeGreaterThanOrEqual(lo - 1e-9);
      expect(r.price, `${r.product_id} ${r.date}`).toBeLessThanOrEqual(hi + 1e-9);
      expect(r.exploratory).toBe(false);
    }
    // The model report says so per product: the observed range, today's price inside it.
    const report = (await model()) as unknown as {
      exploration: {
        exploration: string;
        products: {
          product_id: string;
          observed_price_range: [number, number];
          recommended_price: number;
          departure_pct: number;
        }[];
      };
    };
    expect(report.exploration.exploration).toBe("off");
    expect(report.exploration.products).toHaveLength(ranges.size);
    for (const p of report.exploration.products) {
      expect(p.observed_price_range).toEqual(ranges.get(p.product_id));
      expect(p.departure_pct).toBe(0);
    }
    expect((await pricing("company", "update", "--id", COMPANY, "--exploration", "cautious")).code).toBe(0);
  });
});

describe("the kill switch", () => {
  it("serves the rule at once with fallback_reason forced_rule, and the model again when lifted", async () => {
    const before = await model();
    expect(before.source).toBe("approved");
    const forced = await pricing("company", "update", "--id", COMPANY, "--force-rule", "true");
    expect(forced.code).toBe(0);
    expect(forced.json).toMatchObject({ force_rule: true });

    const report = await model();
    expect(report).toMatchObject({ source: "rule", model_id: null, fallback_reason: "forced_rule" });
    expect(report.approved?.model_id).toBe(before.approved?.model_id);
    const served = await compute(false);
    expect(served.source).toBe("rule");
    for (const r of served.recommendations) {
      expect(r).toMatchObject({ source: "rule", model_id: null, price: r.rule_price, exploratory: false });
    }

    // The nightly run honours it too.
    h.setNow("2026-03-10T23:30:00Z");
    token = await h.token(await h.partner([COMPANY]));
    const batch = await runNightlyBatch(h.ctx, { trigger: "cli", companyId: COMPANY });
    expect(batch.companies[0]?.status).toBe("created");
    const nightly = await h.get(`${V2}/recommendations?company_id=${COMPANY}`, token);
    const nightlyBody = (await nightly.json()) as { run: { source: string }; recommendations: Item[] };
    expect(nightlyBody.run.source).toBe("rule");
    expect(nightlyBody.recommendations.every((r) => r.price === r.rule_price)).toBe(true);

    expect((await pricing("company", "update", "--id", COMPANY, "--force-rule", "false")).code).toBe(0);
    expect((await model()).source).toBe("approved");
  });
});

describe("nightly learning", () => {
  it("refreshes the model on the night's new sales, approving it when it passes the safety gate", async () => {
    const before = await model();
    h.setNow("2026-03-11T03:00:00Z");
    token = await h.token(await h.partner([COMPANY]));
    await importYesterday();
    const batch = await runNightlyBatch(h.ctx, { trigger: "cli", companyId: COMPANY });
    expect(batch.companies[0]?.status).toBe("created");
    const after = await model();
    expect(after.latest?.version).toBe((before.latest?.version ?? 0) + 1);
    const gate = passesSafetyGate({ upliftPct: after.latest?.metrics.upliftPct ?? null });
    expect(after.approved?.model_id === after.latest?.model_id).toBe(gate);
    const history = await h.ctx.policies.store.history(COMPANY);
    expect(history.at(-1)).toMatchObject({
      action: gate ? "train_auto_approve" : "train",
      model_id: after.latest?.model_id,
    });
  });

  it("leaves the refresh in latest when auto-approve is off, and does not refresh without new sales", async () => {
    expect(
      (await pricing("company", "update", "--id", COMPANY, "--auto-approve-updates", "false")).code,
    ).toBe(0);
    const before = await model();
    h.setNow("2026-03-12T03:00:00Z");
    token = await h.token(await h.partner([COMPANY]));
    await importYesterday();
    await runNightlyBatch(h.ctx, { trigger: "cli", companyId: COMPANY });
    const after = await model();
    expect(after.latest?.version).toBe((before.latest?.version ?? 0) + 1);
    expect(after.approved?.model_id).toBe(before.approved?.model_id);
    expect((await h.ctx.policies.store.history(COMPANY)).at(-1)).toMatchObject({
      action: "train",
      model_id: after.latest?.model_id,
    });

    // No sales for the day before: the next night prices without a new version.
    h.setNow("2026-03-13T03:00:00Z");
    token = await h.token(await h.partner([COMPANY]));
    const batch = await runNightlyBatch(h.ctx, { trigger: "cli", companyId: COMPANY });
    expect(batch.companies[0]?.status).toBe("created");
    expect((await model()).latest?.version).toBe(after.latest?.version);
  });
});

describe("the jump guard against the last run", () => {
  const JUMPY = "jumpy";

  it("damps a plan that moves many products far from their last price, a quarter a day at most", async () => {
    await h.seedCompany(JUMPY, { products: 4, seed: 11 });
    const jumpyToken = await h.token(await h.partner([JUMPY]));
    // Sales that do not fall with the price (every day ten units): the fit says the top of a wide range earns most,
    // and `free` exploration lets the learner go there.
    await h.ctx.db.updateTable("sales").set({ units_sold: 10 }).where("company_id", "=", JUMPY).execute();
    const products = await h.ctx.db
      .selectFrom("products")
      .selectAll()
      .where("company_id", "=", JUMPY)
      .execute();
    for (const p of products) {
      await h.ctx.db
        .updateTable("products")
        .set({
          min_price: p.base_price / 2,
          max_price: p.base_price * 3,
          max_daily_change: null,
          stock: null,
        })
        .where("company_id", "=", JUMPY)
        .where("product_id", "=", p.product_id)
        .execute();
    }
    expect((await pricing("company", "update", "--id", JUMPY, "--exploration", "free")).code).toBe(0);
    const today = companyToday(h.now(), "UTC");
    const sold = await h.ctx.repositories.sales.list({ companyId: JUMPY, to: addDays(today, -1) });
    const last = new Map(sold.map((r) => [r.product_id, r.price]));

    const res = await h.post(`${V2}/recommendations/compute`, jumpyToken, {
      company_id: JUMPY,
      dry_run: true,
    });
    expect(res.status).toBe(200);
    const items = ((await res.json()) as { recommendations: Item[] }).recommendations;
    const byProduct = new Map<string, Item[]>();
    for (const r of items) byProduct.set(r.product_id, [...(byProduct.get(r.product_id) ?? []), r]);
    expect(byProduct.size).toBe(4);
    let damped = 0;
    for (const [id, rows] of byProduct) {
      let prev = last.get(id) ?? Number.NaN;
      for (const r of rows) {
        // Never more than a quarter from the day before (today: from the last price sold at), to the cent.
        expect(Math.abs(r.price / prev - 1), `${id} ${r.date}`).toBeLessThanOrEqual(0.25 + 0.01 / prev);
        if (Math.abs(r.price / prev - 1) > 0.24) damped++;
        prev = r.price;
      }
      // Yet the plan was going far: it ends well above where it started.
      expect(rows.at(-1)?.price ?? 0).toBeGreaterThan(1.5 * (last.get(id) ?? Number.NaN));
    }
    // Most products climbed at the guard's edge on the first day.
    expect(damped).toBeGreaterThanOrEqual(2 * 4);
  });
});
