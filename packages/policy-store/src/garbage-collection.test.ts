import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { backendKinds, openFixture } from "./test-support/backends.js";
import { weightsFor } from "./test-support/fixtures.js";
import { finished, spawnTsx, supportScript } from "./test-support/spawn-tsx.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * The write step at which crash-worker seed 1 (a promote with nothing to promote, then a save and its commit)
 * has saved a complete artifact and not yet committed it: on the folder, holding the slot lock; on PostgreSQL,
 * before the commit's first statement (1 statement reads the slots, 4 claim the version, 5 write the artifact).
 */
const AFTER_SAVE = { file: 21, postgres: 11 } as const;

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Two hours on: past the default one-hour grace for what the crashed worker left. */
const later = () => new Date(Date.now() + 2 * 3_600_000);

describe.each(await backendKinds())("gc on the %s backend", (kind) => {
  it("removes what a training killed before taking a slot left, keeps what slots and history reference", async () => {
    const fixture = await openFixture(kind, "gc");
    cleanups.push(fixture.remove);
    const setup = fixture.store;
    /** Files of the folder store (the PostgreSQL store has none: its rows are checked through the store). */
    const files = () => (kind === "file" ? filesUnder(fixture.spec.slice("file:".length)) : []);
    const ids: string[] = [];
    for (const label of ["one", "two"]) {
      const saved = await setup.save({ companyId: "kept", manifest: { label }, weights: weightsFor(label) });
      await setup.commitTraining({
        companyId: "kept",
        modelId: saved.model_id,
        autoApprove: label === "one",
      });
      ids.push(saved.model_id);
    }
    const crashed = await finished(
      spawnTsx(supportScript("crash-worker.ts"), [fixture.spec, "1", `step:${AFTER_SAVE[kind]}`]),
    );
    expect(crashed.signal).toBe("SIGKILL");
    const orphan = (await setup.listVersions("acme"))[0]?.model_id;
    expect(orphan).toBeDefined();
    expect((await setup.getSlots("acme")).revision).toBe(0);
    const locks = kind === "file" ? ["companies/acme/.slots.json.lock"] : [];
    if (kind === "file") expect(files()).toContain(locks[0]);

    const store = fixture.open({ clock: later });
    const young = await store.save({
      companyId: "kept",
      manifest: { label: "young" },
      weights: weightsFor("y"),
    });
    const before = files();
    const planned = await store.gc({ dryRun: true });
    expect(planned).toEqual({
      dry_run: true,
      artifacts: [{ company_id: "acme", model_id: orphan, complete: true }],
      lock_files: locks,
      skipped_companies: [],
    });
    expect(files()).toEqual(before);
    expect((await store.listVersions("acme")).map((r) => r.model_id)).toEqual([orphan]);

    expect(await store.gc()).toEqual({ ...planned, dry_run: false });
    const after = files();
    expect(after.filter((f) => f.includes(orphan ?? "?") || f.endsWith(".lock"))).toEqual([]);
    expect(await store.listVersions("acme")).toEqual([]);
    expect((await store.listVersions("kept")).map((r) => r.model_id)).toEqual([...ids, young.model_id]);
    for (const id of ids) await expect(store.loadArtifact("kept", id)).resolves.toBeDefined();
    expect(await store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });
    expect(await store.checkConsistency("kept")).toEqual({ ok: true, problems: [] });
    expect(await store.gc()).toMatchObject({ artifacts: [], lock_files: [] });
  }, 60_000);
});
