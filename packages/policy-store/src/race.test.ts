import { afterAll, describe, expect, it } from "vitest";
import type { SlotEvent } from "./schemas.js";
import { backendKinds, type Fixture, openFixture } from "./test-support/backends.js";
import { finished, printed, spawnTsx, supportScript } from "./test-support/spawn-tsx.js";

const WORKERS = 8;
const OPERATIONS = 14;

interface Line {
  worker: number;
  op: "save" | "commit" | "promote" | "cas";
  model_id?: string;
  version?: number;
  auto?: boolean;
  changed?: boolean;
  revision?: number;
  result?: "changed" | "noop" | "stale";
  current?: string | null;
  from?: number;
  losses?: number;
}

/** Replays the history serially from empty, failing on any transition a serial execution could not make. */
function replay(history: SlotEvent[]) {
  let latest: string | null = null;
  let approved: string | null = null;
  let previous: string | null = null;
  for (const [i, e] of history.entries()) {
    expect(e.revision).toBe(i + 1);
    expect(e.replaced_latest).toBe(latest);
    expect(e.replaced_approved).toBe(approved);
    if (e.action === "promote") expect(e.model_id).toBe(latest);
    if (e.action !== "train" && e.action !== "rollback") {
      if (approved !== e.model_id) previous = approved;
      approved = e.model_id;
    }
    if (e.action === "train" || e.action === "train_auto_approve") latest = e.model_id;
  }
  return { latest, approved, previous };
}

describe.each(await backendKinds())(
  `race: ${WORKERS} processes training and promoting on one %s store`,
  (kind) => {
    let fixture: Fixture | undefined;
    afterAll(() => fixture?.remove());

    it("assigns unique versions, lets exactly one writer win each compare-and-set, ends in a serial state", async () => {
      fixture = await openFixture(kind, "race");
      const processes = Array.from({ length: WORKERS }, (_, i) =>
        spawnTsx(supportScript("race-worker.ts"), [fixture?.spec ?? "", String(i), String(OPERATIONS)]),
      );
      const children = processes.map(finished);
      // All workers are up before any begins, so their operations overlap.
      await Promise.all(processes.map((p) => printed(p, "ready")));
      for (const p of processes) p.stdin?.end();
      const results = await Promise.all(children);
      for (const r of results) expect(r.stderr, r.stderr).toBe("");
      for (const r of results) expect(r.code).toBe(0);
      const lines = results.flatMap((r) =>
        r.stdout
          .trim()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Line),
      );
      expect(lines).toHaveLength(WORKERS * OPERATIONS + lines.filter((l) => l.op === "commit").length);

      // Versions: 1..N, none twice; model ids unique.
      const saves = lines.filter((l) => l.op === "save");
      expect(saves.map((l) => l.version).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: saves.length }, (_, i) => i + 1),
      );
      expect(new Set(saves.map((l) => l.model_id)).size).toBe(saves.length);
      expect(saves.length).toBeGreaterThan(WORKERS);

      // Each slot change won exactly one revision: the winners' revisions are exactly 1..final.
      const store = fixture.store;
      const slots = await store.getSlots("acme");
      const winners = lines.filter(
        (l) => (l.op === "commit" && l.changed) || (l.op === "promote" && l.result === "changed"),
      );
      expect(winners.map((l) => l.revision).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: slots.revision }, (_, i) => i + 1),
      );
      // ...and each winner is the history event of its revision.
      for (const w of winners) {
        const e = slots.history[(w.revision ?? 0) - 1];
        expect(e?.model_id).toBe(w.model_id);
        expect(e?.action).toBe(w.op === "promote" ? "promote" : w.auto ? "train_auto_approve" : "train");
      }
      // At most one promotion won per model; the others saw a no-op or a stale id.
      const promoted = winners.filter((l) => l.op === "promote").map((l) => l.model_id);
      expect(new Set(promoted).size).toBe(promoted.length);
      const promotes = lines.filter((l) => l.op === "promote");
      expect(promotes.some((l) => l.result === "stale")).toBe(true);
      const committed = new Set(saves.map((l) => l.model_id));
      for (const l of promotes.filter((p) => p.result === "stale")) {
        expect(l.current === null || committed.has(l.current ?? "")).toBe(true);
      }

      // The final state is the one a serial execution of the history produces.
      const serial = replay(slots.history);
      expect(slots.latest?.model_id ?? null).toBe(serial.latest);
      expect(slots.approved?.model_id ?? null).toBe(serial.approved);
      expect(slots.previous_approved).toBe(serial.previous);
      expect(await store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });

      // The backend's raw compare-and-set lost no increment: every stale write failed.
      const bumps = lines.filter((l) => l.op === "cas");
      const counter = await fixture.backend.slots.read("race-counter");
      expect(counter?.state.revision ?? 0).toBe(bumps.length);
      expect(new Set(bumps.map((l) => l.from)).size).toBe(bumps.length);
      // The run really contended: some compare-and-sets lost and were retried.
      expect(bumps.some((l) => (l.losses ?? 0) > 0) || promotes.some((l) => l.result === "noop")).toBe(true);
    }, 120_000);
  },
);
