import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const V2 = "/public/v1/v2";
let h: V2Harness;
let token: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z");
  await h.seedCompany("ours", { products: 2 });
  await h.seedCompany("theirs", { products: 2 });
  await h.seedCompany("thin", { products: 2, historyDays: 10 });
  token = await h.token(await h.partner(["ours", "thin"]));
  await h.partner(["theirs"]);
});

afterAll(async () => {
  await h?.destroy();
});

/** Every V2 operation for `company`, at both the canonical prefix and the host root. */
function everyOperation(company: string): [string, () => Promise<Response>][] {
  const ops: [string, () => Promise<Response>][] = [];
  for (const base of [V2, "/v2"]) {
    ops.push(
      [`GET ${base}/recommendations`, () => h.get(`${base}/recommendations?company_id=${company}`, token)],
      [`GET ${base}/runs`, () => h.get(`${base}/runs?company_id=${company}`, token)],
      [`GET ${base}/model`, () => h.get(`${base}/model?company_id=${company}`, token)],
      [
        `POST ${base}/recommendations/compute`,
        () => h.post(`${base}/recommendations/compute`, token, { company_id: company, dry_run: true }),
      ],
      [`POST ${base}/model/train`, () => h.post(`${base}/model/train`, token, { company_id: company })],
      [
        `POST ${base}/model/promote`,
        () => h.post(`${base}/model/promote`, token, { company_id: company, model_id: "mdl_x" }),
      ],
    );
  }
  return ops;
}

async function envelope(res: Response): Promise<Json> {
  const json = (await res.json()) as Json;
  expect(json.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get("x-request-id")).toBe(json.error.request_id);
  return { ...json.error, request_id: undefined };
}

describe("V2 operations and company access", () => {
  it("gives the identical 404 for a company of another partner and for one that does not exist", async () => {
    const bodies = new Set<string>();
    for (const company of ["theirs", "no-such-company"]) {
      for (const [name, call] of everyOperation(company)) {
        const res = await call();
        expect(res.status, name).toBe(404);
        bodies.add(JSON.stringify(await envelope(res)));
      }
    }
    expect([...bodies]).toEqual([
      JSON.stringify({ code: "company_not_found", message: "Company not found." }),
    ]);
    // Nothing was written for the other partner's company.
    expect((await h.ctx.repositories.runs.list("theirs", 10, 0)).total).toBe(0);
    expect((await h.ctx.policies.store.getSlots("theirs")).latest).toBeNull();
  });

  it("reports the rule, with no_artifact, for a company without any artifact", async () => {
    const res = await h.get(`${V2}/model?company_id=ours`, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      company_id: "ours",
      source: "rule",
      model_id: null,
      latest: null,
      approved: null,
      fallback_reason: "no_artifact",
      exploration: expect.objectContaining({ exploration: "cautious" }),
    });
    const computed = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "ours", dry_run: true })
    ).json()) as Json;
    expect(computed.source).toBe("rule");
    // No model: the rule's source, priced by the online learner from the history (DESIGN §8), no model id.
    for (const r of computed.recommendations) {
      expect(r.source).toBe("rule");
      expect(r.model_id).toBeNull();
      expect(typeof r.exploratory).toBe("boolean");
    }
  });

  it("answers 404 no_run_at_offset before any run, and 409 model_id_stale when there is no latest", async () => {
    const read = await h.get(`${V2}/recommendations?company_id=ours`, token);
    expect(read.status).toBe(404);
    expect((await envelope(read)).code).toBe("no_run_at_offset");
    const promote = await h.post(`${V2}/model/promote`, token, { company_id: "ours", model_id: "mdl_none" });
    expect(promote.status).toBe(409);
    expect((await envelope(promote)).code).toBe("model_id_stale");
  });

  it("refuses to train on too little history with 422 insufficient_history and changes nothing", async () => {
    const res = await h.post(`${V2}/model/train`, token, { company_id: "thin" });
    expect(res.status).toBe(422);
    const error = await envelope(res);
    expect(error.code).toBe("insufficient_history");
    expect(error.message).toMatch(/10 days/);
    expect((await h.ctx.policies.store.getSlots("thin")).latest).toBeNull();
    expect(await h.ctx.policies.store.listVersions("thin")).toEqual([]);
  });

  it("validates the date range and keeps a dry run out of the runs", async () => {
    const bad = await h.post(`${V2}/recommendations/compute`, token, {
      company_id: "ours",
      start_date: "2026-03-20",
      end_date: "2026-03-12",
    });
    expect(bad.status).toBe(400);
    expect((await envelope(bad)).code).toBe("validation_error");
    const past = await h.post(`${V2}/recommendations/compute`, token, {
      company_id: "ours",
      dry_run: true,
      end_date: "2026-03-01",
    });
    expect(past.status).toBe(400);
    const long = await h.post(`${V2}/recommendations/compute`, token, {
      company_id: "ours",
      dry_run: true,
      end_date: "2030-01-01",
    });
    expect(long.status).toBe(400);
    expect((await envelope(long)).message).toMatch(/366 days/);
    // Today is 2026-03-09: nothing before it, nothing past 2027-03-10, whatever the range's own length.
    for (const [range, field] of [
      [{ start_date: "2026-03-08", end_date: "2026-03-12" }, "start_date"],
      [{ start_date: "3088-01-01", end_date: "3088-01-02" }, "start_date"],
      [{ start_date: "2027-03-10", end_date: "2027-03-11" }, "end_date"],
      [{ end_date: "2027-03-11" }, "end_date"],
    ] as const) {
      const res = await h.post(`${V2}/recommendations/compute`, token, {
        company_id: "ours",
        dry_run: true,
        ...range,
      });
      expect(res.status, JSON.stringify(range)).toBe(400);
      expect((await envelope(res)).message, JSON.stringify(range)).toContain(field);
    }
    const lastDay = await h.post(`${V2}/recommendations/compute`, token, {
      company_id: "ours",
      dry_run: true,
      start_date: "2027-03-09",
      end_date: "2027-03-10",
    });
    expect(lastDay.status, await lastDay.clone().text()).toBe(200);
    const ranged = (await (
      await h.post(`${V2}/recommendations/compute`, token, {
        company_id: "ours",
        dry_run: true,
        start_date: "2026-03-10",
        end_date: "2026-03-11",
      })
    ).json()) as Json;
    expect([...new Set(ranged.recommendations.map((r: Json) => r.date))]).toEqual([
      "2026-03-10",
      "2026-03-11",
    ]);
    expect((await h.ctx.repositories.runs.list("ours", 10, 0)).total).toBe(0);
  });
});
