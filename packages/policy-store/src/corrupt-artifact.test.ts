import { afterEach, describe, expect, it } from "vitest";
import type { PolicyStore } from "./policy-store.js";
import { type ArtifactPart, type BackendKind, backendKinds, openFixture } from "./test-support/backends.js";
import { weightsFor } from "./test-support/fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A stored part's new bytes (null: it is gone), from its current ones. */
type Damage = (bytes: Uint8Array) => Uint8Array | null;
const damages: [string, ArtifactPart, Damage][] = [
  [
    "one flipped bit",
    "weights",
    (b) => {
      const out = b.slice();
      out[out.length >> 1] = (out[out.length >> 1] ?? 0) ^ 1;
      return out;
    },
  ],
  ["truncation", "weights", (b) => b.slice(0, 10)],
  ["an appended byte", "weights", (b) => new Uint8Array([...b, 0])],
  ["deletion", "weights", () => null],
  ["an edited manifest", "manifest", () => new TextEncoder().encode('{"metrics":{"label":"forged"}}')],
  ["a missing manifest", "manifest", () => null],
  ["garbage in the record", "record", () => new TextEncoder().encode("{not json")],
  ["a missing record", "record", () => null],
];

async function setUp(kind: BackendKind): Promise<{
  store: PolicyStore;
  damage: (modelId: string, part: ArtifactPart, how: Damage) => Promise<void>;
  ids: string[];
}> {
  const opened = await openFixture(kind, "corrupt");
  cleanups.push(opened.remove);
  const { store } = opened;
  const ids: string[] = [];
  for (const [label, autoApprove] of [
    ["approved", true],
    ["latest", false],
  ] as const) {
    const saved = await store.save({
      companyId: "acme",
      manifest: { metrics: { label } },
      weights: weightsFor(label),
    });
    await store.commitTraining({ companyId: "acme", modelId: saved.model_id, autoApprove });
    ids.push(saved.model_id);
  }
  const damage = async (modelId: string, part: ArtifactPart, how: Damage) => {
    const bytes = await opened.readPart("acme", modelId, part);
    if (bytes === null) throw new Error(`no ${part} stored for ${modelId}`);
    await opened.writePart("acme", modelId, part, how(bytes));
  };
  return { store, damage, ids };
}

describe.each((await backendKinds()).flatMap((kind) => damages.map((d) => [kind, ...d] as const)))(
  "on the %s backend, an artifact damaged by %s",
  (kind, _label, name, how) => {
    it("approved unreadable -> latest with artifact_unreadable; both -> rule; never throws", async () => {
      const { store, damage, ids } = await setUp(kind);
      const [approvedId, latestId] = ids as [string, string];
      await damage(approvedId, name, how);
      const first = await store.resolveActive("acme");
      expect(first).toMatchObject({
        source: "latest",
        model_id: latestId,
        fallback_reason: "artifact_unreadable",
      });
      expect(first.artifact?.weights).toEqual(weightsFor("latest"));
      expect(first.approved?.model_id).toBe(approvedId);
      if (name === "weights") expect(first.approved?.metrics).toEqual({ label: "approved" });
      else expect(first.approved?.metrics).toBeNull();
      await expect(store.loadArtifact("acme", approvedId)).rejects.toMatchObject({
        code: name === "record" && _label.includes("missing") ? "unknown_model" : "artifact_unreadable",
      });

      await damage(latestId, name, how);
      const second = await store.resolveActive("acme");
      expect(second).toMatchObject({
        source: "rule",
        model_id: null,
        fallback_reason: "artifact_unreadable",
        artifact: null,
      });
      expect(second.latest?.model_id).toBe(latestId);
      const check = await store.checkConsistency("acme");
      expect(check.ok).toBe(false);
      expect(check.problems.join("\n")).toContain(approvedId);
    });
  },
);
