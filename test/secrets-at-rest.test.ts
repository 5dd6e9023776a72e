import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource, TSX } from "./tsx-source.js";

// Issue 28 item 4: the database, its -wal and -shm, backups and artifacts are owner-only whatever the umask, and
// `pricing init` tightens a data dir others can read. Real CLI processes under `umask 000`, real files.

const exec = promisify(execFile);
const CLI = join(process.cwd(), "packages/server/src/cli.ts");
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pricing-at-rest-"));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/** `pricing ...` in a child process whose umask takes no bit away. */
async function pricingUnderLooseUmask(args: string[]) {
  const command = [TSX, ...fromSource(CLI, ...args)].map((a) => `'${a}'`).join(" ");
  try {
    const { stdout, stderr } = await exec("sh", ["-c", `umask 000 && exec ${command}`], {
      env: cleanEnv(),
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every file and folder under `dir`, with its mode. */
async function modesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = modeOf(path);
  }
  return out;
}

describe("secrets at rest", () => {
  it("init tightens an open data dir; the database, backups and restores are 0600, folders 0700", async () => {
    const dataDir = join(work, "data");
    await mkdir(dataDir);
    await chmod(dataDir, 0o777);
    const init = await pricingUnderLooseUmask(["init", "--data-dir", dataDir]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain(`warning: the data dir ${dataDir} was open to other users (mode 0777)`);
    expect(modeOf(dataDir)).toBe("700");
    // A partner, so that the database and its -wal hold something and the restore needs the pepper.
    const partner = await pricingUnderLooseUmask([
      "partner",
      "create",
      "--name",
      "Acme",
      "--data-dir",
      dataDir,
    ]);
    expect(partner.code, partner.stderr).toBe(0);
    const files = await modesUnder(dataDir);
    expect(files["pricing.sqlite"]).toBe("600");
    for (const [path, mode] of Object.entries(files)) expect(mode, path).toMatch(/^[67]00$/);

    const again = await pricingUnderLooseUmask(["init", "--data-dir", dataDir]);
    expect(again.stderr).toBe("");

    const backup = join(work, "backups", "pricing.backup");
    const backedUp = await pricingUnderLooseUmask(["db", "backup", backup, "--data-dir", dataDir]);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(modeOf(backup)).toBe("600");
    expect(existsSync(`${backup}-journal`)).toBe(false);

    const restoredDir = join(work, "restored");
    await mkdir(restoredDir, { mode: 0o700 });
    await copyFile(join(dataDir, "key-pepper"), join(restoredDir, "key-pepper"));
    const restored = await pricingUnderLooseUmask(["db", "restore", backup, "--data-dir", restoredDir]);
    expect(restored.code, restored.stderr).toBe(0);
    for (const [path, mode] of Object.entries(await modesUnder(restoredDir))) {
      expect(mode, path).toMatch(/^[67]00$/);
    }
  }, 240_000);
});
