import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPolicyStore } from "./policy-store.js";
import { weightsFor } from "./test-support/fixtures.js";
import { finished, spawnTsx, supportScript } from "./test-support/spawn-tsx.js";
import { makeTempDir } from "./test-support/temp-dir.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Two hours on: past the default one-hour grace for what the crashed worker left. */
const later = () => new Date(Date.now() + 2 * 3_600_000);

describe("gc", () => {
  it("removes what a training killed before taking a slot left, keeps what slots and history reference", async () => {
    const temp = makeTempDir("gc");
    cleanups.push(temp.remove);
    const setup = createPolicyStore({ root: temp.dir });
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
    // Killed at its 21st write step, the worker has saved a complete artifact and holds the slot lock to commit it.
    const crashed = await finished(spawnTsx(supportScript("crash-worker.ts"), [temp.dir, "1", "step:21"]));
    expect(crashed.signal).toBe("SIGKILL");
    const orphan = (await setup.listVersions("acme"))[0]?.model_id;
    expect(orphan).toBeDefined();
    expect(filesUnder(temp.dir)).toContain("companies/acme/.slots.json.lock");

    const store = createPolicyStore({ root: temp.dir, clock: later });
    const young = await store.save({
      companyId: "kept",
      manifest: { label: "young" },
      weights: weightsFor("y"),
    });
    const before = filesUnder(temp.dir);
    const planned = await store.gc({ dryRun: true });
    expect(planned).toEqual({
      dry_run: true,
      artifacts: [{ company_id: "acme", model_id: orphan, complete: true }],
      lock_files: ["companies/acme/.slots.json.lock"],
      skipped_companies: [],
    });
    expect(filesUnder(temp.dir)).toEqual(before);

    expect(await store.gc()).toEqual({ ...planned, dry_run: false });
    const after = filesUnder(temp.dir);
    expect(after.filter((f) => f.includes(orphan ?? "?") || f.endsWith(".lock"))).toEqual([]);
    for (const id of [...ids, young.model_id]) {
      expect(
        after.some((f) => f.includes(id)),
        id,
      ).toBe(true);
    }
    for (const id of ids) await expect(store.loadArtifact("kept", id)).resolves.toBeDefined();
    expect(await store.checkConsistency("acme")).toEqual({ ok: true, problems: [] });
    expect(await store.checkConsistency("kept")).toEqual({ ok: true, problems: [] });
    expect(await store.gc()).toMatchObject({ artifacts: [], lock_files: [] });
  }, 60_000);
});
