/**
 * Measures the policy store's operations on a real folder, and on PostgreSQL when `PRICING_TEST_PG_URL` is set (in
 * a schema of its own, dropped after), and prints a table (median and p95 in ms).
 * Bounded: a few hundred operations, a few seconds. Usage: npx tsx packages/policy-store/examples/measure-store.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seedrandom from "seedrandom";
import { createPolicyStore, createPostgresBackend, type PolicyStore } from "../src/index.js";

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

async function measure(
  open: () => Promise<{ store: PolicyStore; remove: () => Promise<void> }>,
): Promise<[string, number[]][]> {
  const rng = seedrandom("measure-store");
  const weights = new Uint8Array(WEIGHT_BYTES).map(() => Math.floor(rng() * 256));
  const { store, remove } = await open();
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
    await remove();
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

const folder = (fsync: boolean) => async () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-store-measure-"));
  return {
    store: createPolicyStore({ root: dir, fsync }),
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
};
const postgres = (url: string) => async () => {
  const schema = `policy_store_measure_${process.pid}`;
  const backend = await createPostgresBackend({ connectionString: url, schema });
  const pg = (await import("pg")).default;
  return {
    store: createPolicyStore({ backend }),
    async remove() {
      await backend.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    },
  };
};
const runs: [string, () => Promise<{ store: PolicyStore; remove: () => Promise<void> }>][] = [
  ["a local folder, fsync on", folder(true)],
  ["a local folder, fsync off", folder(false)],
];
const pgUrl = process.env.PRICING_TEST_PG_URL;
if (pgUrl) runs.push([`PostgreSQL (${new URL(pgUrl).host})`, postgres(pgUrl)]);

for (const [label, open] of runs) {
  const rows = await measure(open);
  console.log(`\npolicy-store on ${label}, ${ROUNDS} rounds`);
  console.log("| operation | median ms | p95 ms |");
  console.log("|---|---:|---:|");
  for (const [name, samples] of rows) {
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(`| ${name} | ${quantile(sorted, 0.5).toFixed(2)} | ${quantile(sorted, 0.95).toFixed(2)} |`);
  }
}
