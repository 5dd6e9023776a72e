import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliWithEnv } from "./http-harness.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

const COMPANY = "rollback-co";

interface Report {
  source: string;
  model_id: string | null;
  approved: { model_id: string } | null;
  latest: { model_id: string } | null;
}
interface History {
  total_artifacts: number;
  total_events: number;
  artifacts: {
    model_id: string;
    version: number;
    approved_from: string | null;
    approved_until: string | null;
  }[];
  events: { at: string; kind: string; model_id: string; by: string | null }[];
}

describe("model history and rollback on the real server", () => {
  let h: V2Harness;
  let token: string;
  let partnerId: string;

  beforeAll(async () => {
    h = await startV2Harness();
    await h.seedCompany(COMPANY, { products: 2 });
    const partner = await h.partner([COMPANY]);
    partnerId = partner.partner_id;
    token = await h.token(partner);
  });
  afterAll(async () => h?.destroy());

  const step = (minutes: number) => h.setNow(new Date(h.now().getTime() + minutes * 60_000).toISOString());
  async function trainAndApprove(): Promise<string> {
    const trained = await h.post("/public/v1/v2/model/train", token, { company_id: COMPANY });
    expect(trained.status).toBe(200);
    const { model_id } = (await trained.json()) as { model_id: string };
    step(1);
    const promoted = await h.post("/public/v1/v2/model/promote", token, { company_id: COMPANY, model_id });
    expect(promoted.status).toBe(200);
    step(1);
    return model_id;
  }
  const history = async (query = "") => {
    const res = await h.get(`/public/v1/v2/model/history?company_id=${COMPANY}${query}`, token);
    expect(res.status).toBe(200);
    return (await res.json()) as History;
  };

  it("train v1, approve; train v2, approve; roll back to v1; the history tells it in order; stale is 409", async () => {
    const v1 = await trainAndApprove();
    const v2 = await trainAndApprove();

    const stale = await h.post("/public/v1/v2/model/rollback", token, {
      company_id: COMPANY,
      model_id: v1,
      expected_approved_model_id: v1,
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe("approved_model_stale");

    const back = await h.post("/public/v1/v2/model/rollback", token, {
      company_id: COMPANY,
      model_id: v1,
      expected_approved_model_id: v2,
    });
    expect(back.status).toBe(200);
    const report = (await back.json()) as Report;
    expect(report).toMatchObject({
      source: "approved",
      model_id: v1,
      approved: { model_id: v1 },
      latest: { model_id: v2 },
    });
    const read = (await (await h.get(`/public/v1/v2/model?company_id=${COMPANY}`, token)).json()) as Report;
    expect(read.approved?.model_id).toBe(v1);

    const listed = await history();
    expect(listed.events.map((e) => [e.kind, e.model_id, e.by])).toEqual([
      ["rolled_back", v1, partnerId],
      ["promoted", v2, partnerId],
      ["trained", v2, partnerId],
      ["promoted", v1, partnerId],
      ["trained", v1, partnerId],
    ]);
    const times = listed.events.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(listed.artifacts.map((a) => [a.model_id, a.version])).toEqual([
      [v2, 2],
      [v1, 1],
    ]);
    expect(listed.artifacts[0]).toMatchObject({ approved_from: times[1], approved_until: times[0] });
    expect(listed.artifacts[1]).toMatchObject({ approved_from: times[0], approved_until: null });

    const paged = await history("&limit=2&offset=1");
    expect(paged).toMatchObject({ total_artifacts: 2, total_events: 5 });
    expect(paged.events.map((e) => e.kind)).toEqual(["promoted", "trained"]);
    expect(paged.artifacts.map((a) => a.model_id)).toEqual([v1]);

    // The same stale expectation now refers to v2 again: still refused, nothing changed.
    const again = await h.post("/public/v1/v2/model/rollback", token, {
      company_id: COMPANY,
      model_id: v2,
      expected_approved_model_id: v2,
    });
    expect(again.status).toBe(409);
    const never = await h.post("/public/v1/v2/model/rollback", token, {
      company_id: COMPANY,
      model_id: "mdl_00000000000000000000000000",
      expected_approved_model_id: v1,
    });
    expect(never.status).toBe(422);
    expect(((await never.json()) as { error: { code: string } }).error.code).toBe("rollback_target_invalid");
    expect((await history()).total_events).toBe(5);
  });

  it("the CLI lists the same history and rolls back as the operator", async () => {
    const before = await cliWithEnv({}, h.dataDir, "model", "history", COMPANY);
    expect(before.code, before.stderr).toBe(0);
    const listed = before.json as History;
    expect(listed).toEqual(await history());
    const v2 = listed.artifacts[0]?.model_id ?? "";

    const stale = await cliWithEnv(
      {},
      h.dataDir,
      "model",
      "rollback",
      COMPANY,
      v2,
      "--expected-approved",
      v2,
    );
    expect(stale.code).toBe(1);
    expect((stale.json as { error: { code: string } }).error.code).toBe("approved_model_stale");

    const rolled = await cliWithEnv({}, h.dataDir, "model", "rollback", COMPANY, v2);
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.json).toMatchObject({ source: "approved", approved: { model_id: v2 } });
    const after = await history();
    expect(after.events[0]).toMatchObject({ kind: "rolled_back", model_id: v2, by: "operator" });
    expect(after.artifacts[0]).toMatchObject({ model_id: v2, approved_until: null });
  });
});
