import seedrandom from "seedrandom";
import { afterAll, describe, expect, it } from "vitest";
import { type BackendKind, backendKinds, type Fixture, openFixture } from "./test-support/backends.js";
import { finished, printed, spawnTsx, supportScript } from "./test-support/spawn-tsx.js";

const KILLS = 50;
/** Two folders crashed side by side (one per core); each sees KILLS / LANES kills in sequence. */
const LANES = 2;

/** Crashes a victim on the fixture's store `kills` times and checks the store after each; returns what it saw. */
async function crashLane(fixture: Fixture, lane: number, kills: number) {
  const rng = seedrandom(`policy-store-crash-test-${lane}`);
  const claims = new Map<number, string>();
  let lastRevision = 0;
  let lastHistory: string[] = [];
  const modes: string[] = [];

  for (let kill = 0; kill < kills; kill += 1) {
    // Half the kills land on an exact write step (folder: lock taken, temp written, synced, renamed, dir synced;
    // PostgreSQL: before any statement, mid-transaction included), half at a random time.
    const mode = rng() < 0.5 ? `step:${1 + Math.floor(rng() * 120)}` : "timer";
    modes.push(mode);
    const child = spawnTsx(supportScript("crash-worker.ts"), [fixture.spec, `${lane}-${kill}`, mode]);
    const done = finished(child);
    if (mode === "timer") {
      await printed(child, "ready");
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(rng() * 200)));
      child.kill("SIGKILL");
    }
    const result = await done;
    expect(result.stderr, result.stderr).toBe("");
    expect(result.signal).toBe("SIGKILL");

    const store = fixture.store;
    expect(await store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });
    const active = await store.resolveActive("acme");
    expect(active.fallback_reason === null || active.fallback_reason === "no_artifact").toBe(true);

    // A version, once claimed by a model, stays that model's.
    for (const { version, claim } of await fixture.backend.artifacts.versionClaims("acme")) {
      expect(claim).not.toBeNull();
      const modelId = claim?.model_id ?? "";
      expect(claims.get(version ?? 0) ?? modelId).toBe(modelId);
      claims.set(version ?? 0, modelId);
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

describe.each(await backendKinds())(
  "crash: SIGKILL at random points of save, commit and promote (%s)",
  (kind: BackendKind) => {
    const fixtures: Fixture[] = [];
    afterAll(async () => {
      for (const fixture of fixtures) await fixture.remove();
    });

    it(`reopens consistent after each of ${KILLS} kills, never reusing a version`, async () => {
      for (let lane = 0; lane < LANES; lane += 1) fixtures.push(await openFixture(kind, `crash${lane}`));
      const lanes = await Promise.all(
        fixtures.map((fixture, lane) => crashLane(fixture, lane, KILLS / LANES)),
      );
      // The run exercised the store: many versions, slot changes, and both kinds of kill.
      for (const lane of lanes) {
        expect(lane.versions).toBeGreaterThan(KILLS / LANES);
        expect(lane.revision).toBeGreaterThan(KILLS / LANES);
        expect(new Set(lane.modes.map((m) => m.slice(0, 4))).size).toBe(2);
      }
      // 50 child processes: about 20 s alone, three times that while the rest of the suite shares the cores.
    }, 240_000);
  },
);

describe.runIf((await backendKinds()).includes("postgres"))("crash inside a PostgreSQL save", () => {
  it("leaves no trace of the artifact when killed before its transaction commits, only the burnt version", async () => {
    const fixture = await openFixture("postgres", "halfsave");
    try {
      // Seed 1 reads the slots (1 statement), claims a version (4), then writes the artifact: begin, manifest
      // blob, weights blob, artifact row, commit. Statement 10 is that commit: both blobs and the row are sent.
      const result = await finished(
        spawnTsx(supportScript("crash-worker.ts"), [fixture.spec, "1", "step:10"]),
      );
      expect(result.signal).toBe("SIGKILL");
      const claims = await fixture.backend.artifacts.versionClaims("acme");
      expect(claims.map((c) => c.version)).toEqual([1]);
      const modelId = claims[0]?.claim?.model_id ?? "";
      expect(await fixture.store.listVersions("acme")).toEqual([]);
      expect(await fixture.backend.artifacts.listModels("acme")).toEqual([]);
      await expect(fixture.store.loadArtifact("acme", modelId)).rejects.toMatchObject({
        code: "unknown_model",
      });
      expect(await fixture.countRows("policy_store_blobs")).toBe(0);
      expect(await fixture.countRows("policy_store_artifacts")).toBe(0);
      expect(await fixture.store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });
      // The next save takes the next version: the burnt one is never reused.
      const next = await fixture.store.save({
        companyId: "acme",
        manifest: {},
        weights: new Uint8Array([1]),
      });
      expect(next.version).toBe(2);
    } finally {
      await fixture.remove();
    }
  });
});
