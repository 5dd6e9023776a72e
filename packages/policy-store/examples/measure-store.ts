/**
 * Measures the policy store's operations on a real folder and prints a table (median and p95 in ms).
 * Bounded: a few hundred operations, a few seconds. Usage: npx tsx packages/policy-store/examples/measure-store.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seedrandom from "seedrandom";
import { createPolicyStore } from "../src/index.js";

const ROUNDS = 60;
const WEIGHT_BYTES = 256 * 1024;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function timed(samples: number[], fn: () => Promise<unknown>): Promise<void> {
  const start = process.hrtime.bigint();
  await fn();
  samples.push(Number(process.hrtime.bigint() - start) / 1e6);
}

async function measure(fsync: boolean): Promise<[string, number[]][]> {
  const dir = mkdtempSync(join(tmpdir(), "policy-store-measure-"));
  const rng = seedrandom("measure-store");
  const weights = new Uint8Array(WEIGHT_BYTES).map(() => Math.floor(rng() * 256));
  const store = createPolicyStore({ root: dir, fsync });
  const save: number[] = [];
  const commit: number[] = [];
  const promote: number[] = [];
  const stale: number[] = [];
  const slots: number[] = [];
  const resolve: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      let modelId = "";
      await timed(save, async () => {
        modelId = (await store.save({ companyId: "acme", manifest: { metrics: { i } }, weights })).model_id;
      });
      await timed(commit, () => store.commitTraining({ companyId: "acme", modelId }));
      await timed(promote, () => store.promote("acme", modelId));
      await timed(stale, () =>
        store.promote("acme", "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV").catch(() => undefined),
      );
      await timed(slots, () => store.getSlots("acme"));
      await timed(resolve, () => store.resolveActive("acme"));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    ["save (256 KiB weights)", save],
    ["commitTraining", commit],
    ["promote", promote],
    ["promote (stale)", stale],
    ["getSlots", slots],
    ["resolveActive (verifies 256 KiB)", resolve],
  ];
}

for (const fsync of [true, false]) {
  const rows = await measure(fsync);
  console.log(`\npolicy-store on a local folder, fsync ${fsync ? "on" : "off"}, ${ROUNDS} rounds`);
  console.log("| operation | median ms | p95 ms |");
  console.log("|---|---:|---:|");
  for (const [name, samples] of rows) {
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(`| ${name} | ${quantile(sorted, 0.5).toFixed(2)} | ${quantile(sorted, 0.95).toFixed(2)} |`);
  }
}
