import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Explanation, Recommendation } from "@pricing/http-adapter";
import { importCompanyData, runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

const COMPANY = "explain-co";
const API = "/public/v1/v2";

interface Guardrails {
  base: number;
  min: number;
  max: number;
  limit: number | null;
  stock: number;
}

/**
 * Guardrails tight enough that each constraint binds somewhere (the import keeps them around the base price): a
 * floor and ceiling a cent or so apart around the base price with ample stock (the rule's weekday rhythm leaves
 * them on both sides), a ceiling at the base price with scarce stock (the rule paces above it), and a 2 % max daily
 * change between wide guardrails. The stock is set now, so it is today's.
 */
function tighten(index: number, base: number): Guardrails {
  const round = (x: number) => Math.round(x * 100) / 100;
  if (index % 3 === 0) return { base, min: base, max: round(base * 1.01), limit: null, stock: 1000 };
  if (index % 3 === 1) return { base, min: round(base * 0.9), max: base, limit: null, stock: 10 };
  return { base, min: round(base * 0.5), max: round(base * 2), limit: 0.02, stock: 30 };
}

describe("explanations (explain=true) on the real server", () => {
  let h: V2Harness;
  let token: string;
  const rails = new Map<string, Guardrails>();
  const lastPrice = new Map<string, number>();

  beforeAll(async () => {
    h = await startV2Harness();
    await h.seedCompany(COMPANY, { products: 3 });
    token = await h.token(await h.partner([COMPANY]));
    // Re-import the seeded products through the operator's CSV import with the tight guardrails.
    const file = join(h.dataDir, "csv", `${COMPANY}-products.csv`);
    const [header, ...lines] = (await readFile(file, "utf8")).trim().split("\n");
    const columns = (header ?? "").split(",");
    const at = (name: string) => columns.indexOf(name);
    const rows = lines.map((line, i) => {
      const cells = line.split(",");
      const g = tighten(i, Number(cells[at("base_price")]));
      rails.set(cells[at("product_id")] ?? "", g);
      cells[at("min_price")] = String(g.min);
      cells[at("max_price")] = String(g.max);
      cells[at("max_daily_change")] = g.limit === null ? "" : String(g.limit);
      cells[at("stock")] = String(g.stock);
      return cells.join(",");
    });
    const tight = join(h.dataDir, "csv", `${COMPANY}-tight.csv`);
    await writeFile(tight, `${[header, ...rows].join("\n")}\n`);
    await importCompanyData(h.ctx.db, h.ctx.clock, { companyId: COMPANY, productsFile: tight });
    // The rule alone prices (the kill switch), so each binding is checked against the rule's own price; without it
    // the online learner prices the company even with no model trained.
    await h.ctx.repositories.companies.update(COMPANY, { force_rule: true }, "operator");
    const sales = await h.ctx.db
      .selectFrom("sales")
      .select(["product_id", "date", "price"])
      .where("company_id", "=", COMPANY)
      .orderBy("date")
      .execute();
    for (const s of sales) lastPrice.set(s.product_id, s.price);
  });
  afterAll(async () => h?.destroy());

  const get = (query: string) => h.get(`${API}/recommendations?company_id=${COMPANY}${query}`, token);
  const explanationOf = (r: Recommendation): Explanation => {
    if (r.explanation == null) throw new Error(`no explanation on ${r.product_id} ${r.date}`);
    return r.explanation;
  };

  it("names the binding constraint of every item, and its stock cover, on a dry run", async () => {
    const res = await h.post(`${API}/recommendations/compute`, token, {
      company_id: COMPANY,
      dry_run: true,
      explain: true,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { recommendations: Recommendation[] };
    expect(body.recommendations.length).toBeGreaterThan(0);
    const seen = new Set<string | null>();
    const prev = new Map(lastPrice);
    const stock = new Map([...rails].map(([id, g]) => [id, g.stock]));
    for (const r of body.recommendations) {
      const g = rails.get(r.product_id);
      if (g === undefined) throw new Error(`unknown product ${r.product_id}`);
      const e = explanationOf(r);
      seen.add(e.binding);
      const before = prev.get(r.product_id) ?? null;
      // From the price, the guardrails and the previous day's price alone.
      expect(r.price).toBeGreaterThanOrEqual(g.min);
      expect(r.price).toBeLessThanOrEqual(g.max);
      if (r.price === e.rule_price) expect(e.binding).toBeNull();
      else if (r.price === g.min && e.rule_price < g.min) expect(e.binding).toBe("min_price");
      else if (r.price === g.max && e.rule_price > g.max) expect(e.binding).toBe("max_price");
      else {
        expect(e.binding).toBe("max_daily_change");
        if (g.limit === null || before === null)
          throw new Error("moved inside the guardrails without a limit");
        const edge = e.rule_price > r.price ? before * (1 + g.limit) : before * (1 - g.limit);
        expect(Math.abs(r.price - edge)).toBeLessThanOrEqual(0.01 + 1e-9);
      }
      // The stock at the start of the day over the day's expected units.
      const left = stock.get(r.product_id) ?? 0;
      if (r.expected_units > 0) {
        const u = r.expected_units;
        const tolerance = 0.006 + (left / u) * (1e-4 / u) + (21 * 5e-5) / u;
        expect(Math.abs((e.stock_cover_days ?? Number.NaN) - left / u)).toBeLessThanOrEqual(tolerance);
      } else expect(e.stock_cover_days).toBeNull();
      stock.set(r.product_id, Math.max(0, left - r.expected_units));
      prev.set(r.product_id, r.price);
      // The demand fit knows every seeded product; the history's range holds its last price.
      expect(e.elasticity).not.toBeNull();
      expect(e.elasticity_se).not.toBeNull();
      expect(e.weekday_index).toBeGreaterThan(0);
      const [lo, hi] = e.observed_price_range;
      const last = lastPrice.get(r.product_id) ?? Number.NaN;
      expect(lo).toBeLessThanOrEqual(last);
      expect(hi).toBeGreaterThanOrEqual(last);
    }
    expect(seen.has("min_price")).toBe(true);
    expect(seen.has("max_price")).toBe(true);
    expect(seen.has("max_daily_change")).toBe(true);
  });

  it("stores the explanations with the run: read twice the same, the plain read and its ETag unchanged", async () => {
    const plainCompute = await h.post(`${API}/recommendations/compute`, token, { company_id: COMPANY });
    expect(plainCompute.status).toBe(200);
    const computed = (await plainCompute.json()) as { recommendations: Recommendation[] };
    expect(computed.recommendations.every((r) => !("explanation" in r))).toBe(true);

    const plain = await get("");
    const plainBody = await plain.text();
    const plainTag = plain.headers.get("etag");
    expect(plainBody).not.toContain("explanation");

    const first = await get("&explain=true");
    const firstBody = await first.text();
    const second = await get("&explain=true");
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(firstBody);
    expect(first.headers.get("etag")).not.toBe(plainTag);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    const explained = JSON.parse(firstBody) as { recommendations: Recommendation[] };
    expect(explained.recommendations.every((r) => r.explanation != null)).toBe(true);
    // Without the explanations, the explained read is the plain one.
    expect(explained.recommendations.map(({ explanation: _, ...r }) => r)).toEqual(computed.recommendations);

    const again = await get("");
    expect(again.headers.get("etag")).toBe(plainTag);
    expect(await again.text()).toBe(plainBody);
    expect((await get("&explain=false")).headers.get("etag")).toBe(plainTag);
    const conditional = await fetch(`${h.url}${API}/recommendations?company_id=${COMPANY}&explain=true`, {
      headers: { authorization: `Bearer ${token}`, "if-none-match": first.headers.get("etag") ?? "" },
    });
    expect(conditional.status).toBe(304);

    // A dry run explaining on the same day and data gives the explanations the run stored.
    const dry = await h.post(`${API}/recommendations/compute`, token, {
      company_id: COMPANY,
      dry_run: true,
      explain: true,
    });
    const dryBody = (await dry.json()) as { recommendations: Recommendation[] };
    expect(dryBody.recommendations.map((r) => r.explanation)).toEqual(
      explained.recommendations.map((r) => r.explanation),
    );
  });

  it("stores them with a nightly run and a persisted compute that asks for them", async () => {
    const report = await runNightlyBatch(h.ctx, { trigger: "cli", companyId: COMPANY });
    expect(report.companies.map((c) => c.status)).toEqual(["created"]);
    const nightly = (await (await get("&explain=true")).json()) as {
      run: { kind: string };
      recommendations: Recommendation[];
    };
    expect(nightly.run.kind).toBe("nightly");
    expect(nightly.recommendations.every((r) => r.explanation != null)).toBe(true);

    const compute = await h.post(`${API}/recommendations/compute`, token, {
      company_id: COMPANY,
      explain: true,
    });
    const computed = (await compute.json()) as { recommendations: Recommendation[] };
    const read = (await (await get("&explain=true")).json()) as { recommendations: Recommendation[] };
    expect(read.recommendations).toEqual(computed.recommendations);
  });

  it("reads a run persisted before explanations existed with explanation: null, and the plain read as before", async () => {
    const latest = (await (await get("")).json()) as {
      run: Record<string, string>;
      recommendations: Recommendation[];
    };
    // The row as a server before migration 0011 wrote it: no explanation.
    await h.ctx.repositories.runs.insert(
      {
        companyId: COMPANY,
        kind: "on_demand",
        asOf: latest.run.as_of ?? "",
        createdAt: h.now().toISOString(),
        source: "rule",
        modelId: null,
        startDate: latest.run.start_date ?? "",
        endDate: latest.run.end_date ?? "",
        recommendations: latest.recommendations,
      },
      10,
    );
    const old = (await (await get("&explain=true")).json()) as { recommendations: Recommendation[] };
    expect(old.recommendations.length).toBe(latest.recommendations.length);
    expect(old.recommendations.every((r) => r.explanation === null)).toBe(true);
    const plain = (await (await get("")).json()) as { recommendations: Recommendation[] };
    expect(plain.recommendations).toEqual(latest.recommendations);
  });

  it("refuses an explain that is not true or false, changing nothing", async () => {
    const res = await get("&explain=yes");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("validation_error");
  });
});
