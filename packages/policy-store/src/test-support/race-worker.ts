/**
 * One of the race test's processes: waits for the start signal (its stdin closing), then trains, promotes and
 * bumps a shared counter (the raw slot compare-and-set of the backend) on the same store as its siblings, printing
 * one JSON line per operation for the parent to audit.
 * Usage: race-worker.ts <backend spec> <worker-index> <operations>
 */
import { once } from "node:events";
import seedrandom from "seedrandom";
import { ModelIdStaleError } from "../errors.js";
import { openSpec } from "./backends.js";

const [spec = "", indexText = "0", opsText = "10"] = process.argv.slice(2);
const worker = Number(indexText);
const rng = seedrandom(`race-worker-${worker}`);
const { store, backend, close } = await openSpec(spec);
const COMPANY = "acme";
/** The counter is the revision of this company's slot document, moved by the backend's compare-and-set alone. */
const COUNTER_COMPANY = "race-counter";
const seen: string[] = [];

function log(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ worker, ...line })}\n`);
}

async function bumpCounter(): Promise<void> {
  let losses = 0;
  for (;;) {
    const current = await backend.slots.read(COUNTER_COMPANY);
    const value = current?.state.revision ?? 0;
    const next = {
      company_id: COUNTER_COMPANY,
      revision: value + 1,
      latest: null,
      approved: null,
      previous_approved: null,
      history: [],
    };
    // A stale tag must fail and write nothing; the loser re-reads and tries again.
    if (await backend.slots.write(COUNTER_COMPANY, next, current?.tag ?? null)) {
      log({ op: "cas", from: value, losses });
      return;
    }
    losses += 1;
  }
}

async function promote(modelId: string): Promise<void> {
  try {
    const { slots, changed } = await store.promote(COMPANY, modelId);
    log({ op: "promote", model_id: modelId, result: changed ? "changed" : "noop", revision: slots.revision });
  } catch (error) {
    if (!(error instanceof ModelIdStaleError)) throw error;
    log({ op: "promote", model_id: modelId, result: "stale", current: error.currentLatestId });
  }
}

async function main(): Promise<void> {
  const go = once(process.stdin.resume(), "end");
  process.stdout.write("ready\n");
  await go;
  for (let i = 0; i < Number(opsText); i += 1) {
    const roll = rng();
    if (roll < 0.35) {
      const autoApprove = rng() < 0.3;
      const record = await store.save({
        companyId: COMPANY,
        manifest: (ids) => ({ ...ids, worker }),
        weights: new Uint8Array([worker, i, ...new TextEncoder().encode(`w${worker}-${i}`)]),
      });
      log({ op: "save", model_id: record.model_id, version: record.version });
      const { slots, changed } = await store.commitTraining({
        companyId: COMPANY,
        modelId: record.model_id,
        autoApprove,
      });
      log({ op: "commit", model_id: record.model_id, auto: autoApprove, changed, revision: slots.revision });
      seen.push(record.model_id);
    } else if (roll < 0.7) {
      // Promote what this worker believes is the latest: races with every other trainer and promoter.
      const latest = (await store.getSlots(COMPANY)).latest?.model_id;
      if (latest !== undefined) seen.push(latest);
      await promote(latest ?? "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    } else if (roll < 0.8 && seen.length > 0) {
      await promote(seen[Math.floor(rng() * seen.length)] ?? "");
    } else {
      await bumpCounter();
    }
  }
}

main()
  .then(close)
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
