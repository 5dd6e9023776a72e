import { join } from "node:path";
import seedrandom from "seedrandom";
import { afterAll, describe, expect, it } from "vitest";
import { FsObjectStore } from "./fs-object-store.js";
import { createPolicyStore } from "./policy-store.js";
import { finished, printed, spawnTsx, supportScript } from "./test-support/spawn-tsx.js";
import { makeTempDir } from "./test-support/temp-dir.js";

const KILLS = 50;
/** Two folders crashed side by side (one per core); each sees KILLS / LANES kills in sequence. */
const LANES = 2;

/** Crashes a victim on `root` `kills` times and checks the store after each; returns what it saw. */
async function crashLane(root: string, lane: number, kills: number) {
  const rng = seedrandom(`policy-store-crash-test-${lane}`);
  const objects = new FsObjectStore({ root });
  const claims = new Map<string, string>();
  let lastRevision = 0;
  let lastHistory: string[] = [];
  const modes: string[] = [];

  for (let kill = 0; kill < kills; kill += 1) {
    // Half the kills land on an exact write step (lock taken, temp written, synced, renamed, dir synced),
    // half at a random time, wherever the process happens to be.
    const mode = rng() < 0.5 ? `step:${1 + Math.floor(rng() * 120)}` : "timer";
    modes.push(mode);
    const child = spawnTsx(supportScript("crash-worker.ts"), [root, `${lane}-${kill}`, mode]);
    const done = finished(child);
    if (mode === "timer") {
      await printed(child, "ready");
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(rng() * 200)));
      child.kill("SIGKILL");
    }
    const result = await done;
    expect(result.stderr, result.stderr).toBe("");
    expect(result.signal).toBe("SIGKILL");

    const store = createPolicyStore({ root });
    expect(await store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });
    const active = await store.resolveActive("acme");
    expect(active.fallback_reason === null || active.fallback_reason === "no_artifact").toBe(true);

    // A version, once claimed by a model, stays that model's.
    for (const key of await objects.list("companies/acme/versions/")) {
      const claim = JSON.parse(new TextDecoder().decode((await objects.get(key))?.body)) as {
        model_id: string;
      };
      expect(claims.get(key) ?? claim.model_id).toBe(claim.model_id);
      claims.set(key, claim.model_id);
    }
    // Slot history only ever grows by appending.
    const slots = await store.getSlots("acme");
    const history = slots.history.map((e) => `${e.revision}:${e.action}:${e.model_id}`);
    expect(slots.revision).toBeGreaterThanOrEqual(lastRevision);
    expect(history.slice(0, lastHistory.length)).toEqual(lastHistory);
    lastRevision = slots.revision;
    lastHistory = history;
  }
  return { versions: claims.size, revision: lastRevision, modes };
}

describe("crash: SIGKILL at random points of save, commit and promote", () => {
  const temp = makeTempDir("crash");
  afterAll(() => temp.remove());

  it(`reopens consistent after each of ${KILLS} kills, never reusing a version`, async () => {
    const lanes = await Promise.all(
      Array.from({ length: LANES }, (_, lane) =>
        crashLane(join(temp.dir, `store-${lane}`), lane, KILLS / LANES),
      ),
    );
    // The run exercised the store: many versions, slot changes, and both kinds of kill.
    for (const lane of lanes) {
      expect(lane.versions).toBeGreaterThan(KILLS / LANES);
      expect(lane.revision).toBeGreaterThan(KILLS / LANES);
      expect(new Set(lane.modes.map((m) => m.slice(0, 4))).size).toBe(2);
    }
  });
});
