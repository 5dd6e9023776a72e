import { isApiError } from "@pricing/http-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestContext, type TestContext } from "../db/test-context.js";
import { postgresTestsEnabled } from "../db/test-postgres.js";
import { companySettings, updateCompanySettings } from "./company-settings.js";

const backends = [
  ["sqlite", true],
  ["postgres", await postgresTestsEnabled()],
] as const;

describe.each(backends)("company settings on %s", (backend, enabled) => {
  let t: TestContext;
  let now = Date.parse("2026-03-10T09:00:00Z");

  beforeAll(async () => {
    if (!enabled) return;
    t = await openTestContext(backend, "console_settings", () => new Date(now));
    await t.ctx.repositories.companies.create({
      company_id: "acme",
      name: "Acme",
      timezone: "UTC",
      currency: "EUR",
    });
  });
  afterAll(async () => t?.close());

  it.skipIf(!enabled)("sets the values and records each change with who made it, newest first", async () => {
    const first = await updateCompanySettings(
      t.ctx,
      "acme",
      { exploration: "free", force_rule: true },
      "operator",
    );
    expect(first.company).toMatchObject({ exploration: "free", force_rule: 1, auto_approve_updates: 1 });
    expect(first.events.map(({ field, old, new: value, by, at }) => ({ field, old, value, by, at }))).toEqual(
      [
        {
          field: "exploration",
          old: "cautious",
          value: "free",
          by: "operator",
          at: "2026-03-10T09:00:00.000Z",
        },
        { field: "force_rule", old: false, value: true, by: "operator", at: "2026-03-10T09:00:00.000Z" },
      ],
    );
    now += 60_000;
    const second = await updateCompanySettings(
      t.ctx,
      "acme",
      { force_rule: false, auto_approve_updates: false },
      "console:alice",
    );
    expect(second.events.map((e) => [e.field, e.old, e.new, e.by])).toEqual([
      ["auto_approve_updates", true, false, "console:alice"],
      ["force_rule", true, false, "console:alice"],
    ]);
    const report = await companySettings(t.ctx, "acme");
    expect(report.settings).toEqual({
      exploration: "free",
      auto_approve_updates: false,
      force_rule: false,
      price_endings: [],
    });
    expect(report.total_events).toBe(4);
    expect(report.events.map((e) => `${e.by} ${e.field}`)).toEqual([
      "console:alice force_rule",
      "console:alice auto_approve_updates",
      "operator force_rule",
      "operator exploration",
    ]);
  });

  it.skipIf(!enabled)("sets price endings (DESIGN §11) and clears them, recording both", async () => {
    const set = await updateCompanySettings(t.ctx, "acme", { price_endings: [".99", ".49"] }, "operator");
    expect(set.events.map((e) => [e.field, e.old, e.new])).toEqual([["price_endings", [], [".99", ".49"]]]);
    expect((await companySettings(t.ctx, "acme")).settings.price_endings).toEqual([".99", ".49"]);
    const same = await updateCompanySettings(t.ctx, "acme", { price_endings: [".99", ".49"] }, "operator");
    expect(same.events).toEqual([]);
    const cleared = await updateCompanySettings(t.ctx, "acme", { price_endings: [] }, "console:bob");
    expect(cleared.events.map((e) => [e.field, e.old, e.new, e.by])).toEqual([
      ["price_endings", [".99", ".49"], [], "console:bob"],
    ]);
    expect(cleared.company.price_endings).toBeNull();
  });

  it.skipIf(!enabled)("records nothing for a value already as asked", async () => {
    const before = (await companySettings(t.ctx, "acme")).total_events;
    const update = await updateCompanySettings(t.ctx, "acme", { exploration: "free" }, "operator");
    expect(update.events).toEqual([]);
    expect((await companySettings(t.ctx, "acme")).total_events).toBe(before);
  });

  it.skipIf(!enabled)(
    "refuses an unknown company, an unknown field, a bad value or no field, changing nothing",
    async () => {
      const before = await companySettings(t.ctx, "acme");
      const refused = async (companyId: string, change: unknown) => {
        const error = await updateCompanySettings(t.ctx, companyId, change, "operator").catch(
          (e: unknown) => e,
        );
        if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
        return [error.code, error.message];
      };
      expect((await refused("nope", { exploration: "off" }))[0]).toBe("company_not_found");
      expect(await refused("acme", { exploration: "wild" })).toEqual([
        "validation_error",
        expect.stringContaining("exploration"),
      ]);
      expect(await refused("acme", { force_rule: "yes" })).toEqual([
        "validation_error",
        expect.stringContaining("force_rule"),
      ]);
      expect((await refused("acme", { exploration: "off", secret: 1 }))[0]).toBe("validation_error");
      expect(await refused("acme", { price_endings: ["99c"] })).toEqual([
        "validation_error",
        expect.stringContaining('price ending "99c"'),
      ]);
      expect((await refused("acme", {}))[0]).toBe("validation_error");
      expect(await companySettings(t.ctx, "acme")).toEqual(before);
    },
  );

  it.skipIf(!enabled)(
    "keeps both of two concurrent changes, each recorded against the value before it",
    async () => {
      await Promise.all([
        updateCompanySettings(t.ctx, "acme", { exploration: "off" }, "console:a"),
        updateCompanySettings(t.ctx, "acme", { exploration: "cautious" }, "console:b"),
      ]);
      const [last, first] = (await companySettings(t.ctx, "acme")).events;
      expect(first?.old).toBe("free");
      expect(last?.old).toBe(first?.new);
      expect((await companySettings(t.ctx, "acme")).settings.exploration).toBe(last?.new);
    },
  );
});
