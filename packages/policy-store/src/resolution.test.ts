import { afterEach, describe, expect, it } from "vitest";
import type { LoadedArtifact } from "./artifacts.js";
import type { PolicyStore } from "./policy-store.js";
import { type BackendKind, backendKinds, openFixture } from "./test-support/backends.js";
import { weightsFor } from "./test-support/fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A loaded value that records whether it was disposed. */
interface Loaded {
  label: unknown;
  disposed: boolean;
}

async function setUp(kind: BackendKind) {
  const opened = await openFixture(kind, "resolver");
  cleanups.push(opened.remove);
  const store: PolicyStore = opened.store;
  const train = async (companyId: string, label: string, autoApprove: boolean) => {
    const saved = await store.save({
      companyId,
      manifest: { label, metrics: { label } },
      weights: weightsFor(label),
    });
    await store.commitTraining({ companyId, modelId: saved.model_id, autoApprove });
    return saved.model_id;
  };
  return { store, train, fixture: opened };
}

/** A loader counting its calls, refusing the labels in `refuse` (like an engine that cannot rebuild them). */
function loader(refuse: Set<string> = new Set()) {
  const calls: string[] = [];
  const load = (artifact: LoadedArtifact): Loaded => {
    const label = String(artifact.manifest.label);
    calls.push(label);
    if (refuse.has(label)) throw new Error(`cannot rebuild ${label}`);
    return { label, disposed: false };
  };
  const dispose = (value: Loaded) => {
    value.disposed = true;
  };
  return { calls, load, dispose };
}

describe.each(await backendKinds())("createResolver on the %s backend", (kind) => {
  it("falls through approved -> latest -> rule when the loader refuses, saying why", async () => {
    const { store, train } = await setUp(kind);
    const approvedId = await train("acme", "approved", true);
    const latestId = await train("acme", "latest", false);
    const refuse = new Set(["approved"]);
    const resolver = store.createResolver(loader(refuse));

    const first = await resolver.resolve("acme");
    expect(first.active).toMatchObject({ source: "latest", modelId: latestId, policy: { label: "latest" } });
    expect(first.report).toMatchObject({
      source: "latest",
      model_id: latestId,
      fallback_reason: "artifact_unreadable",
    });
    // The refused artifact verified, so its metrics are still reported.
    expect(first.report.approved).toMatchObject({ model_id: approvedId, metrics: { label: "approved" } });

    refuse.add("latest");
    const rule = await store.createResolver(loader(refuse)).resolve("acme");
    expect(rule.active).toEqual({ source: "rule", modelId: null, policy: null });
    expect(rule.report.fallback_reason).toBe("artifact_unreadable");

    const none = await resolver.resolve("empty");
    expect(none.active).toEqual({ source: "rule", modelId: null, policy: null });
    expect(none.report).toMatchObject({ fallback_reason: "no_artifact", latest: null, approved: null });
    resolver.close();
  });

  it("loads each model once, yet notices an artifact damaged after it was cached", async () => {
    const { store, train, fixture } = await setUp(kind);
    const approvedId = await train("acme", "approved", true);
    const latestId = await train("acme", "latest", false);
    const { calls, load, dispose } = loader();
    const resolver = store.createResolver({ load, dispose });
    const first = await resolver.resolve("acme");
    const second = await resolver.resolve("acme");
    expect(second.active.policy).toBe(first.active.policy);
    expect(calls).toEqual(["approved"]);

    const bytes = (await fixture.readPart("acme", approvedId, "weights")) ?? new Uint8Array();
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    await fixture.writePart("acme", approvedId, "weights", bytes);
    const third = await resolver.resolve("acme");
    expect(third.active).toMatchObject({ source: "latest", modelId: latestId });
    expect(third.report.fallback_reason).toBe("artifact_unreadable");
    expect(calls).toEqual(["approved", "latest"]);
    resolver.close();
  });

  it("keeps at most cacheSize values, disposing the least recently used, and disposes the rest on close", async () => {
    const { store, train } = await setUp(kind);
    for (const company of ["a", "b", "c"]) await train(company, company, true);
    const { calls, load, dispose } = loader();
    const resolver = store.createResolver({ load, dispose, cacheSize: 2 });
    const a = (await resolver.resolve("a")).active.policy;
    const b = (await resolver.resolve("b")).active.policy;
    await resolver.resolve("a");
    const c = (await resolver.resolve("c")).active.policy;
    // b was the least recently used when c came in.
    await expect.poll(() => b?.disposed).toBe(true);
    expect([a?.disposed, c?.disposed]).toEqual([false, false]);
    await resolver.resolve("a");
    expect(calls).toEqual(["a", "b", "c"]);

    resolver.close();
    await expect.poll(() => [a?.disposed, c?.disposed]).toEqual([true, true]);
  });

  it("reports artifact_incompatible when the loader refuses with that code, apart from unreadable", async () => {
    const { store, train } = await setUp(kind);
    const approvedId = await train("acme", "old-engine", true);
    const latestId = await train("acme", "latest", false);
    const resolver = store.createResolver({
      load: (artifact) => {
        if (artifact.manifest.label === "old-engine") {
          throw Object.assign(new Error("made by an engine this one cannot read"), {
            code: "artifact_incompatible",
          });
        }
        return String(artifact.manifest.label);
      },
    });
    const { active, report } = await resolver.resolve("acme");
    expect(active).toMatchObject({ source: "latest", modelId: latestId });
    expect(report).toMatchObject({
      fallback_reason: "artifact_incompatible",
      approved: { model_id: approvedId },
    });
    resolver.close();
  });

  it("serves the rule with slots_unreadable when the slot record does not parse, and refuses to change it", async () => {
    const { store, train, fixture } = await setUp(kind);
    await train("acme", "approved", true);
    await fixture.writeSlotsText("acme", '{"company_id":"acme","revision":');
    const resolver = store.createResolver(loader());
    const { active, report } = await resolver.resolve("acme");
    expect(active).toEqual({ source: "rule", modelId: null, policy: null });
    expect(report).toMatchObject({ fallback_reason: "slots_unreadable", latest: null, approved: null });
    expect((await store.resolveActive("acme")).fallback_reason).toBe("slots_unreadable");
    const saved = await store.save({ companyId: "acme", manifest: { label: "x" }, weights: weightsFor("x") });
    await expect(store.commitTraining({ companyId: "acme", modelId: saved.model_id })).rejects.toMatchObject({
      code: "corrupt_slots",
    });
    resolver.close();
  });
});
