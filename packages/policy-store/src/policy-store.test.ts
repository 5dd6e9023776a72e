import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovedModelStaleError, ModelIdStaleError, PolicyStoreError } from "./errors.js";
import type { PolicyStore, PolicyStoreOptions } from "./policy-store.js";
import { approvalPeriods } from "./slot-history.js";
import { backendKinds, type Fixture, openFixture } from "./test-support/backends.js";
import { steppingClock, weightsFor } from "./test-support/fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(await backendKinds())("policy store on the %s backend", (kind) => {
  async function open(
    clock = steppingClock(),
    options: Omit<PolicyStoreOptions, "backend" | "root" | "objectStore"> = {},
  ): Promise<Fixture> {
    const opened = await openFixture(kind, "unit", { clock, ...options });
    cleanups.push(opened.remove);
    return opened;
  }

  async function train(store: PolicyStore, companyId: string, label: string, autoApprove = false) {
    const record = await store.save({
      companyId,
      manifest: (ids) => ({ ...ids, metrics: { label } }),
      weights: weightsFor(label),
    });
    await store.commitTraining({ companyId, modelId: record.model_id, autoApprove });
    return record;
  }

  async function expectCode(promise: Promise<unknown>, code: string) {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PolicyStoreError);
    expect((error as PolicyStoreError).code).toBe(code);
    return error as PolicyStoreError;
  }

  describe("save", () => {
    it("assigns mdl_ + ULID ids in order and versions 1, 2, 3 per company", async () => {
      const { store } = await open();
      const a1 = await store.save({ companyId: "a", manifest: { n: 1 }, weights: weightsFor("a1") });
      const b1 = await store.save({ companyId: "b", manifest: { n: 1 }, weights: weightsFor("b1") });
      const a2 = await store.save({ companyId: "a", manifest: { n: 2 }, weights: weightsFor("a2") });
      const a3 = await store.save({ companyId: "a", manifest: { n: 3 }, weights: weightsFor("a3") });
      expect([a1.version, a2.version, a3.version, b1.version]).toEqual([1, 2, 3, 1]);
      for (const r of [a1, a2, a3, b1]) expect(r.model_id).toMatch(/^mdl_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect([a1.model_id, b1.model_id, a2.model_id, a3.model_id]).toEqual(
        [a1.model_id, b1.model_id, a2.model_id, a3.model_id].sort(),
      );
      expect((await store.listVersions("a")).map((r) => r.model_id)).toEqual([
        a1.model_id,
        a2.model_id,
        a3.model_id,
      ]);
    });

    it("lets the manifest embed the assigned ids and records both sha256", async () => {
      const { store } = await open();
      const weights = weightsFor("w", 1000);
      const record = await store.save({
        companyId: "acme",
        manifest: (ids) => ({
          model_id: ids.model_id,
          version: ids.version,
          trained_at: "2026-03-04T05:06:07Z",
        }),
        weights,
      });
      const loaded = await store.loadArtifact("acme", record.model_id);
      expect(loaded.manifest).toEqual({
        model_id: record.model_id,
        version: 1,
        trained_at: "2026-03-04T05:06:07Z",
      });
      expect(loaded.weights).toEqual(weights);
      expect(record.trained_at).toBe("2026-03-04T05:06:07.000Z");
      expect(record.weights_bytes).toBe(1000);
      const { createHash } = await import("node:crypto");
      expect(record.weights_sha256).toBe(createHash("sha256").update(weights).digest("hex"));
    });

    it("rejects bad input before claiming a version", async () => {
      const { store } = await open();
      await expectCode(
        store.save({ companyId: "", manifest: {}, weights: weightsFor("x") }),
        "invalid_input",
      );
      await expectCode(
        store.save({
          companyId: "a",
          manifest: [] as unknown as Record<string, unknown>,
          weights: weightsFor("x"),
        }),
        "invalid_input",
      );
      await expectCode(
        store.save({ companyId: "a", manifest: {}, weights: "nope" as unknown as Uint8Array }),
        "invalid_input",
      );
      const record = await store.save({ companyId: "a", manifest: {}, weights: weightsFor("x") });
      expect(record.version).toBe(1);
    });

    it("stores any company id, including ones that are not path-safe", async () => {
      const { store, spec } = await open();
      const ids = ["../etc", "Ünïcode/ü", "a b", "acme"];
      for (const id of ids) await train(store, id, id);
      expect(await store.listCompanies()).toEqual([...ids].sort());
      if (kind === "file") {
        expect(readdirSync(join(spec.slice("file:".length), "companies")).sort()).toEqual(
          ["acme", "a~20b", "~2E~2E~2Fetc", "~C3~9Cn~C3~AFcode~2F~C3~BC"].sort(),
        );
      }
    });
  });

  describe("slots", () => {
    it("train without auto-approve moves only latest; the source is latest", async () => {
      const { store } = await open();
      expect((await store.resolveActive("acme")).source).toBe("rule");
      const m1 = await train(store, "acme", "m1");
      const slots = await store.getSlots("acme");
      expect(slots.latest?.model_id).toBe(m1.model_id);
      expect(slots.approved).toBeNull();
      expect(slots.revision).toBe(1);
      const active = await store.resolveActive("acme");
      expect(active).toMatchObject({
        source: "latest",
        model_id: m1.model_id,
        fallback_reason: null,
        approved: null,
      });
      expect(active.latest).toMatchObject({ model_id: m1.model_id, version: 1, metrics: { label: "m1" } });
      expect(active.artifact?.weights).toEqual(weightsFor("m1"));
    });

    it("auto-approve moves latest and approved in one revision", async () => {
      const { store } = await open();
      const m1 = await train(store, "acme", "m1", true);
      const slots = await store.getSlots("acme");
      expect(slots.revision).toBe(1);
      expect(slots.latest?.model_id).toBe(m1.model_id);
      expect(slots.approved?.model_id).toBe(m1.model_id);
      expect(slots.history).toMatchObject([
        { revision: 1, action: "train_auto_approve", model_id: m1.model_id },
      ]);
      expect(await store.resolveActive("acme")).toMatchObject({ source: "approved", model_id: m1.model_id });
    });

    it("promote succeeds only with the current latest id, else a stale error carrying it", async () => {
      const { store } = await open();
      const none = await store.promote("acme", "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV").catch((e: unknown) => e);
      expect(none).toBeInstanceOf(ModelIdStaleError);
      expect((none as ModelIdStaleError).currentLatestId).toBeNull();

      const m1 = await train(store, "acme", "m1", true);
      const m2 = await train(store, "acme", "m2");
      const stale = await store.promote("acme", m1.model_id).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(ModelIdStaleError);
      expect((stale as ModelIdStaleError).code).toBe("model_id_stale");
      expect((stale as ModelIdStaleError).currentLatestId).toBe(m2.model_id);
      expect((await store.getSlots("acme")).revision).toBe(2);

      const promoted = await store.promote("acme", m2.model_id);
      expect(promoted.changed).toBe(true);
      expect(promoted.slots).toMatchObject({ revision: 3, previous_approved: m1.model_id });
      expect(promoted.slots.approved?.model_id).toBe(m2.model_id);
      expect(promoted.slots.history.at(-1)).toMatchObject({
        action: "promote",
        model_id: m2.model_id,
        replaced_approved: m1.model_id,
      });
      const again = await store.promote("acme", m2.model_id);
      expect(again.changed).toBe(false);
      expect(again.slots.revision).toBe(3);

      const report = await store.resolveActive("acme");
      expect(report).toMatchObject({ source: "approved", model_id: m2.model_id, fallback_reason: null });
      expect(report.approved).toMatchObject({ model_id: m2.model_id, version: 2, metrics: { label: "m2" } });
      expect(report.approved?.approved_at).toBe(promoted.slots.approved?.approved_at);
    });

    it("rollback returns approved to the model it replaced, and refuses models never approved", async () => {
      const { store } = await open();
      await expectCode(store.rollback("acme"), "nothing_to_roll_back");
      const m1 = await train(store, "acme", "m1", true);
      const m2 = await train(store, "acme", "m2");
      await store.promote("acme", m2.model_id);
      const m3 = await train(store, "acme", "m3");
      await expectCode(store.rollback("acme", { toModelId: m3.model_id }), "nothing_to_roll_back");
      const back = await store.rollback("acme");
      expect(back.slots.approved?.model_id).toBe(m1.model_id);
      expect(back.slots.latest?.model_id).toBe(m3.model_id);
      expect(back.slots.previous_approved).toBe(m2.model_id);
      expect(back.slots.history.at(-1)).toMatchObject({ action: "rollback", replaced_approved: m2.model_id });
      const forth = await store.rollback("acme", { toModelId: m2.model_id });
      expect(forth.slots.approved?.model_id).toBe(m2.model_id);
    });

    it("commitTraining of an unknown model changes nothing", async () => {
      const { store } = await open();
      await train(store, "acme", "m1");
      await expectCode(
        store.commitTraining({ companyId: "acme", modelId: "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV" }),
        "unknown_model",
      );
      await expectCode(store.commitTraining({ companyId: "acme", modelId: "../../x" }), "unknown_model");
      const other = await store.save({ companyId: "other", manifest: {}, weights: weightsFor("o") });
      await expectCode(store.commitTraining({ companyId: "acme", modelId: other.model_id }), "unknown_model");
      expect((await store.getSlots("acme")).revision).toBe(1);
    });

    it("keeps the newest history entries past the limit", async () => {
      const { store } = await open(steppingClock(), { historyLimit: 3 });
      for (let i = 0; i < 5; i += 1) await train(store, "acme", `m${i}`);
      expect((await store.history("acme")).map((e) => e.revision)).toEqual([3, 4, 5]);
    });

    it("rollback compare-and-sets on the approved model, records who acted, and periods follow the history", async () => {
      const { store } = await open();
      const m1 = await train(store, "acme", "m1", true);
      const m2 = await train(store, "acme", "m2");
      await store.promote("acme", m2.model_id, { by: "partner-a" });
      const before = await store.getSlots("acme");
      const stale = await expectCode(
        store.rollback("acme", { toModelId: m1.model_id, expectedApprovedId: m1.model_id }),
        "approved_model_stale",
      );
      expect(stale).toBeInstanceOf(ApprovedModelStaleError);
      expect((stale as ApprovedModelStaleError).currentApprovedId).toBe(m2.model_id);
      expect(await store.getSlots("acme")).toEqual(before);
      const back = await store.rollback("acme", {
        toModelId: m1.model_id,
        expectedApprovedId: m2.model_id,
        by: "operator",
      });
      expect(back.slots.approved?.model_id).toBe(m1.model_id);
      expect(back.slots.history.map((e) => [e.action, e.by])).toEqual([
        ["train_auto_approve", undefined],
        ["train", undefined],
        ["promote", "partner-a"],
        ["rollback", "operator"],
      ]);
      const periods = approvalPeriods(back.slots.history);
      const at = back.slots.history.map((e) => e.at);
      expect(periods.get(m1.model_id)).toEqual({ from: at[3], until: null });
      expect(periods.get(m2.model_id)).toEqual({ from: at[2], until: at[3] });
      expect(await store.artifactMetrics("acme", m2.model_id)).toEqual({ label: "m2" });
    });

    it("rollback refuses a target whose artifact no longer verifies, changing nothing", async () => {
      const { store, writePart } = await open();
      const m1 = await train(store, "acme", "m1", true);
      const m2 = await train(store, "acme", "m2", true);
      await writePart("acme", m1.model_id, "weights", new TextEncoder().encode("tampered"));
      await expectCode(
        store.rollback("acme", { toModelId: m1.model_id, expectedApprovedId: m2.model_id }),
        "artifact_unreadable",
      );
      expect((await store.getSlots("acme")).approved?.model_id).toBe(m2.model_id);
    });
  });

  describe("retention", () => {
    it("keeps slot and rollback targets plus the newest N others, deletes the rest and interrupted saves", async () => {
      let now = Date.parse("2026-01-01T00:00:00Z");
      const clock = () => new Date(now);
      const { store, backend, writePart } = await open(clock);
      const ids: string[] = [];
      for (let i = 1; i <= 6; i += 1) {
        now += 60_000;
        ids.push((await train(store, "acme", `m${i}`, i === 2)).model_id);
      }
      // An interrupted save: weights written, never recorded (on PostgreSQL a save is one transaction: the
      // record's loss leaves nothing of the model, and it is not listed as deleted).
      now += 60_000;
      const orphan = await store.save({ companyId: "acme", manifest: {}, weights: weightsFor("orphan") });
      await writePart("acme", orphan.model_id, "record", null);
      const orphans = kind === "file" ? [orphan.model_id] : [];

      // Too young: nothing goes.
      expect((await store.retain("acme", { keep: 1 })).deleted).toEqual([]);
      now += 2 * 3_600_000;
      const result = await store.retain("acme", { keep: 1 });
      // m6 is latest, m2 approved; of m1, m3, m4, m5 the newest (m5) is kept.
      expect(result.deleted.sort()).toEqual([ids[0], ids[2], ids[3], ...orphans].sort());
      expect(result.kept).toEqual([ids[1], ids[4], ids[5]]);
      expect((await store.checkConsistency("acme")).ok).toBe(true);
      // Versions are never reused after deletion.
      expect((await store.save({ companyId: "acme", manifest: {}, weights: weightsFor("n") })).version).toBe(
        8,
      );
      const claims = await backend.artifacts.versionClaims("acme");
      expect(claims).toHaveLength(8);
      expect(claims.find((c) => c.version === 1)?.claim).toMatchObject({ version: 1, model_id: ids[0] });
    });
  });
});
