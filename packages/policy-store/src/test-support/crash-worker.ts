/**
 * The crash test's victim: saves, commits, promotes (and now and then prunes) on a store until it is
 * killed. With `step:<n>` it SIGKILLs itself at the n-th write step of the folder store (on PostgreSQL: before
 * sending its n-th statement, inside or between transactions); with `timer` it prints "ready" and waits for
 * the parent's SIGKILL.
 * Usage: crash-worker.ts <backend spec> <seed> <step:n | timer>
 */
import seedrandom from "seedrandom";
import { ModelIdStaleError } from "../errors.js";
import { openSpec } from "./backends.js";

const [spec = "", seed = "0", mode = "timer"] = process.argv.slice(2);
const rng = seedrandom(`crash-worker-${seed}`);
const killAt = mode.startsWith("step:") ? Number(mode.slice(5)) : Number.POSITIVE_INFINITY;
let steps = 0;
const step = () => {
  steps += 1;
  if (steps === killAt) process.kill(process.pid, "SIGKILL");
};
const { store } = await openSpec(spec, { onWriteStep: step, onQuery: step });
const COMPANY = "acme";

async function main(): Promise<void> {
  if (killAt === Number.POSITIVE_INFINITY) process.stdout.write("ready\n");
  for (let i = 0; i < 500; i += 1) {
    const roll = rng();
    if (roll < 0.45) {
      const record = await store.save({
        companyId: COMPANY,
        manifest: (ids) => ({ ...ids, metrics: { seed } }),
        weights: new Uint8Array(4096).map((_, j) => (j * 31 + i) % 251),
      });
      await store.commitTraining({ companyId: COMPANY, modelId: record.model_id, autoApprove: rng() < 0.3 });
    } else if (roll < 0.8) {
      const latest = (await store.getSlots(COMPANY)).latest;
      if (latest !== null) await store.promote(COMPANY, latest.model_id);
    } else if (roll < 0.9) {
      await store.promote(COMPANY, "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV").catch((error: unknown) => {
        if (!(error instanceof ModelIdStaleError)) throw error;
      });
    } else {
      await store.retain(COMPANY, { keep: 2, minAgeMs: 0 });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
