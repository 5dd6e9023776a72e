import { readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PolicyStore } from "./policy-store.js";
import { openTempStore, weightsFor } from "./test-support/fixtures.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

type Damage = (file: string) => void;
const damages: [string, string, Damage][] = [
  [
    "one flipped bit",
    "weights.bin",
    (f) => {
      const b = readFileSync(f);
      b[b.length >> 1] = (b[b.length >> 1] ?? 0) ^ 1;
      writeFileSync(f, b);
    },
  ],
  ["truncation", "weights.bin", (f) => truncateSync(f, 10)],
  [
    "an appended byte",
    "weights.bin",
    (f) => writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.from([0])])),
  ],
  ["deletion", "weights.bin", (f) => rmSync(f)],
  ["an edited manifest", "manifest.json", (f) => writeFileSync(f, '{"metrics":{"label":"forged"}}')],
  ["a missing manifest", "manifest.json", (f) => rmSync(f)],
  ["garbage in the record", "record.json", (f) => writeFileSync(f, "{not json")],
  ["a missing record", "record.json", (f) => rmSync(f)],
];

async function setUp(): Promise<{
  store: PolicyStore;
  file: (modelId: string, name: string) => string;
  ids: string[];
}> {
  const opened = openTempStore("corrupt");
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
  const file = (modelId: string, name: string) =>
    join(opened.dir, "companies", "acme", "artifacts", modelId, name);
  return { store, file, ids };
}

describe.each(damages)("an artifact damaged by %s", (_label, name, damage) => {
  it("approved unreadable -> latest with artifact_unreadable; both -> rule; never throws", async () => {
    const { store, file, ids } = await setUp();
    const [approvedId, latestId] = ids as [string, string];
    damage(file(approvedId, name));
    const first = await store.resolveActive("acme");
    expect(first).toMatchObject({
      source: "latest",
      model_id: latestId,
      fallback_reason: "artifact_unreadable",
    });
    expect(first.artifact?.weights).toEqual(weightsFor("latest"));
    expect(first.approved?.model_id).toBe(approvedId);
    if (name === "weights.bin") expect(first.approved?.metrics).toEqual({ label: "approved" });
    else expect(first.approved?.metrics).toBeNull();
    await expect(store.loadArtifact("acme", approvedId)).rejects.toMatchObject({
      code: name === "record.json" && _label.includes("missing") ? "unknown_model" : "artifact_unreadable",
    });

    damage(file(latestId, name));
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
});
