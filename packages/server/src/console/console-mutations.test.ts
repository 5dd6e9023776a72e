import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgram, runCli } from "../cli/program.js";
import { trainModel } from "../training/train-model.js";
import { CONSOLE_MUTATIONS } from "./console-mutations.js";
import { COMPANY, type ConsoleTest, login, openConsoleTest, sameOrigin } from "./test-console.js";

function commandPaths(): string[] {
  const paths: string[] = [];
  const walk = (cmd: Command, path: string) => {
    for (const sub of cmd.commands) {
      const here = path === "" ? sub.name() : `${path} ${sub.name()}`;
      paths.push(here);
      walk(sub, here);
    }
  };
  walk(createProgram({ io: { out: () => {}, err: () => {} }, env: {} }), "");
  return paths;
}

describe("the console's mutations", () => {
  let t: ConsoleTest;
  let cookie: string;
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...argv, "--json"], {
      env: { PRICING_DATA_DIR: t.dataDir },
      io: { out: (s) => out.push(s), err: (s) => err.push(s) },
    });
    return { code, json: JSON.parse((code === 0 ? out : err).join("") || "null") };
  };
  const post = (path: string, payload: unknown) =>
    t.app.inject({
      method: "POST",
      url: path,
      headers: { ...sameOrigin(), cookie },
      payload: payload as object,
    });
  const slotEvents = async () => (await t.ctx.policies.store.getSlots(COMPANY)).history;
  const approved = async () => (await t.ctx.policies.store.getSlots(COMPANY)).approved?.model_id;

  beforeAll(async () => {
    t = await openConsoleTest();
    cookie = await login(t.app, "alice");
  });
  afterAll(async () => t?.close());

  it("are every state-changing /api/ route, each beside the pricing command that does the same", () => {
    const changing = t.routes
      .filter((r) => !["GET", "HEAD"].includes(r.method) && r.url.startsWith("/api/"))
      .map((r) => `${r.method} ${r.url}`);
    expect(changing.sort()).toEqual(CONSOLE_MUTATIONS.map((m) => `POST ${m.path}`).sort());
    expect(CONSOLE_MUTATIONS.map((m) => [m.path, m.cli])).toEqual([
      ["/api/companies/:company_id/settings", "company update"],
      ["/api/companies/:company_id/model/promote", "promote"],
      ["/api/companies/:company_id/model/rollback", "model rollback"],
      ["/api/companies/:company_id/backtests", "backtest"],
    ]);
    const commands = commandPaths();
    for (const m of CONSOLE_MUTATIONS) expect(commands, m.cli).toContain(m.cli);
  });

  it("settings: the console and `pricing company update` change and record through the one service", async () => {
    const viaConsole = await post(`/api/companies/${COMPANY}/settings`, { force_rule: true });
    expect(viaConsole.statusCode).toBe(200);
    const viaCli = await cli("company", "update", "--id", COMPANY, "--force-rule", "false");
    expect(viaCli.code).toBe(0);
    expect(viaCli.json.events).toEqual([
      expect.objectContaining({ field: "force_rule", old: true, new: false }),
    ]);
    const { events } = await t.ctx.repositories.companies.events(COMPANY, 10);
    expect(events.map((e) => [e.by, e.field, e.old, e.new])).toEqual([
      ["operator", "force_rule", true, false],
      ["console:alice", "force_rule", false, true],
    ]);
    // The same refusals, from the same validation.
    const bad = await post(`/api/companies/${COMPANY}/settings`, { exploration: "wild" });
    expect(bad.statusCode).toBe(400);
    const badCli = await cli("company", "update", "--id", COMPANY, "--exploration", "wild");
    expect(badCli.code).toBe(1);
  });

  it("backtests: the console and `pricing backtest --save` run and save through the one service", async () => {
    const viaConsole = await post(`/api/companies/${COMPANY}/backtests`, {
      from: "2026-02-24",
      refit: "once",
    });
    expect(viaConsole.statusCode).toBe(200);
    expect(viaConsole.json()).toMatchObject({
      company_id: COMPANY,
      from: "2026-02-24",
      refit: "once",
      by: "console:alice",
    });
    const viaCli = await cli(
      "backtest",
      "--company",
      COMPANY,
      "--from",
      "2026-02-24",
      "--refit",
      "once",
      "--save",
    );
    expect(viaCli.code).toBe(0);
    const { backtests } = await t.ctx.repositories.backtests.list(COMPANY, { limit: 5, offset: 0 });
    expect(backtests.map((b) => b.by)).toEqual(["operator", "console:alice"]);
    // The same figures from the same service on the same sales.
    expect(backtests[0]?.summary).toEqual(backtests[1]?.summary);
    // A range with no sales before it is the operator's to fix: 400, nothing saved.
    const bad = await post(`/api/companies/${COMPANY}/backtests`, { from: "2020-01-01" });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, "validation_error"]);
    expect((await t.ctx.repositories.backtests.list(COMPANY, { limit: 5, offset: 0 })).total).toBe(2);
  });

  it("promote and rollback: the console and the CLI change the slots through the same services and compare-and-set", async () => {
    const a = await trainModel(t.ctx, { company_id: COMPANY, auto_approve: true }, { by: "operator" });
    const b = await trainModel(t.ctx, { company_id: COMPANY, auto_approve: false }, { by: "operator" });
    const promoted = await post(`/api/companies/${COMPANY}/model/promote`, { model_id: b.model_id });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ source: "approved", model_id: b.model_id });
    expect((await slotEvents()).at(-1)).toMatchObject({
      action: "promote",
      model_id: b.model_id,
      by: "console:alice",
    });

    // A stale id is the API's 409 from either side.
    const stale = await post(`/api/companies/${COMPANY}/model/promote`, { model_id: a.model_id });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe("model_id_stale");
    const staleCli = await cli("promote", "--company", COMPANY, "--model", a.model_id);
    expect([staleCli.code, staleCli.json.error.code]).toEqual([1, "model_id_stale"]);

    const c = await trainModel(t.ctx, { company_id: COMPANY, auto_approve: false }, { by: "operator" });
    expect((await cli("promote", "--company", COMPANY, "--model", c.model_id)).code).toBe(0);
    expect((await slotEvents()).at(-1)).toMatchObject({
      action: "promote",
      model_id: c.model_id,
      by: "operator",
    });

    const back = await post(`/api/companies/${COMPANY}/model/rollback`, {
      model_id: b.model_id,
      expected_approved_model_id: c.model_id,
    });
    expect(back.statusCode).toBe(200);
    expect(await approved()).toBe(b.model_id);
    expect((await slotEvents()).at(-1)).toMatchObject({
      action: "rollback",
      model_id: b.model_id,
      by: "console:alice",
    });
    const staleBack = await post(`/api/companies/${COMPANY}/model/rollback`, {
      model_id: a.model_id,
      expected_approved_model_id: c.model_id,
    });
    expect([staleBack.statusCode, staleBack.json().error.code]).toEqual([409, "approved_model_stale"]);
    const staleBackCli = await cli(
      "model",
      "rollback",
      COMPANY,
      a.model_id,
      "--expected-approved",
      c.model_id,
    );
    expect([staleBackCli.code, staleBackCli.json.error.code]).toEqual([1, "approved_model_stale"]);
    expect(
      (await cli("model", "rollback", COMPANY, c.model_id, "--expected-approved", b.model_id)).code,
    ).toBe(0);
    expect((await slotEvents()).at(-1)).toMatchObject({
      action: "rollback",
      model_id: c.model_id,
      by: "operator",
    });
    expect(await approved()).toBe(c.model_id);
  });
});
