import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createServerContext, loadConfig, type ServerContext, startServer } from "@pricing/server";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource, TSX } from "./tsx-source.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const exec = promisify(execFile);
const CLI = join(process.cwd(), "packages/server/src/cli.ts");
const V2 = "/public/v1/v2";

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/** `pricing ...` in a child process: exit code, stdout, stderr (never throws). */
async function pricing(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await exec(TSX, fromSource(CLI, ...args), {
      env: { ...cleanEnv(), ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

let h: V2Harness;
let keys: { access_key: string; secret_key: string };
let token: string;
let work: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z", undefined, {
    // Computes in a loop while the backup runs: past the expensive operations' default limit.
    rateLimits: { computePerPartner: { max: 100_000, windowMs: 60_000 } },
  });
  await h.seedCompany("north", { products: 3 });
  await h.seedCompany("south", { products: 2 });
  keys = await h.partner(["north", "south"]);
  token = await h.token(keys);
  const trained = await h.post(`${V2}/model/train`, token, { company_id: "north", auto_approve: true });
  expect(trained.status).toBe(200);
  work = await mkdtemp(join(tmpdir(), "pricing-backup-"));
}, 120_000);

afterAll(async () => {
  await h?.destroy();
  if (work) await rm(work, { recursive: true, force: true });
});

async function openRestored(dataDir: string): Promise<ServerContext> {
  return createServerContext(loadConfig({}, { dataDir, logLevel: "silent" }));
}

describe("pricing db backup / restore", () => {
  it("backs up while the server writes and restores to a consistent, serving state", async () => {
    const file = join(work, "live.backup");
    let writing = true;
    let written = 0;
    const writer = (async () => {
      // Persisted computes (runs and recommendations rows) and a training (artifacts, slots) during the backup.
      const training = h.post(`${V2}/model/train`, token, { company_id: "south" });
      while (writing) {
        const res = await h.post(`${V2}/recommendations/compute`, token, { company_id: "north" });
        if (res.status !== 200) throw new Error(`compute answered ${res.status}: ${await res.text()}`);
        written++;
      }
      const trained = await training;
      if (trained.status !== 200) throw new Error(`train answered ${trained.status}`);
    })();
    // The backup starts once a compute has persisted a run and the training is under way, however slow the machine.
    await waitFor(() => (written > 0 && h.ctx.training.isTraining("south")) || !writing, {
      what: "a persisted compute and south's training to start",
    });
    const backup = await pricing(["db", "backup", file, "--json", "--data-dir", h.dataDir]);
    writing = false;
    await writer;
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    const report = JSON.parse(backup.stdout) as Json;
    // "south" is in the store once its training, running during the backup, has saved.
    expect(report.file).toBe(file);
    expect(report.companies).toBeGreaterThanOrEqual(1);
    expect(report.pepper_ids).toEqual([h.ctx.pepper.current.id]);
    expect(written).toBeGreaterThan(0);
    console.log(
      `backup: ${report.bytes} bytes, ${report.store_objects} store objects, ${written} computes during it`,
    );

    const target = join(work, "restored");
    // The key pepper is kept apart from the backup; the operator puts it back first.
    await rm(target, { recursive: true, force: true });
    await exec("mkdir", ["-p", target]);
    await copyFile(join(h.dataDir, "key-pepper"), join(target, "key-pepper"));
    const restored = await pricing(["db", "restore", file, "--json", "--data-dir", target]);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({
      companies: report.companies,
      replaced: false,
      missing_pepper_ids: [],
    });

    const sqlite = new SqliteDatabase(join(target, "pricing.sqlite"), { readonly: true });
    try {
      expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
      const tables = sqlite.prepare("select name from sqlite_master where type = 'table'").pluck().all();
      expect(tables).not.toContain("pricing_backup_objects");
    } finally {
      sqlite.close();
    }
    const ctx = await openRestored(target);
    try {
      for (const company of await ctx.policies.store.listCompanies()) {
        expect(await ctx.policies.store.checkConsistency(company)).toEqual({ ok: true, problems: [] });
      }
      const { report: north } = await ctx.policies.resolver.resolve("north");
      expect(north).toMatchObject({ source: "approved", fallback_reason: null });
      const runs = await ctx.repositories.runs.list("north", 100, 0);
      expect(runs.total).toBeGreaterThan(0);
    } finally {
      await ctx.close();
    }
    // A server on the restored data dir: the partner's keys still mint tokens (the restored hashes meet the pepper
    // put back beside them) and the restored runs are served.
    const server = await startServer(loadConfig({}, { dataDir: target, port: 0, logLevel: "silent" }));
    try {
      const res = await fetch(`${server.url}/public/v1/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: keys.access_key, secret_key: keys.secret_key }),
      });
      expect(res.status).toBe(200);
      const { access_token } = (await res.json()) as { access_token: string };
      const runs = await fetch(`${server.url}${V2}/runs?company_id=north`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(runs.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("refuses a live database, a non-empty target, a missing pepper and PostgreSQL, changing nothing", async () => {
    const file = join(work, "live.backup");
    const live = await pricing(["db", "restore", file, "--force", "--json", "--data-dir", h.dataDir]);
    expect(live.code).toBe(1);
    expect(JSON.parse(live.stderr).error.code).toBe("target_in_use");
    const still = await h.get(`${V2}/model?company_id=north`, token);
    expect(still.status).toBe(200);

    const notEmpty = await pricing(["db", "restore", file, "--json", "--data-dir", join(work, "restored")]);
    expect(JSON.parse(notEmpty.stderr).error.code).toBe("target_not_empty");

    const bare = join(work, "bare");
    const noPepper = await pricing(["db", "restore", file, "--json", "--data-dir", bare]);
    expect(noPepper.code).toBe(1);
    const error = JSON.parse(noPepper.stderr).error;
    expect(error.code).toBe("pepper_missing");
    expect(error.message).toContain(h.ctx.pepper.current.id);
    expect(await readdir(bare).catch(() => [])).toEqual([]);

    const pg = await pricing(["db", "backup", join(work, "pg.backup"), "--json", "--data-dir", bare], {
      PRICING_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      PRICING_JWT_SECRET: "test-jwt-secret-shared-by-every-replica-0001",
      PRICING_KEY_PEPPER: "test-key-pepper-shared-by-every-replica-0001",
    });
    expect(JSON.parse(pg.stderr).error).toMatchObject({ code: "postgres_unsupported" });
    expect(JSON.parse(pg.stderr).error.message).toContain("pg_dump");

    const again = await pricing(["db", "backup", file, "--json", "--data-dir", h.dataDir]);
    expect(JSON.parse(again.stderr).error.code).toBe("backup_exists");
  }, 120_000);

  it("restores all or nothing: a damaged backup leaves the target as it was", async () => {
    const file = join(work, "damaged.backup");
    await copyFile(join(work, "live.backup"), file);
    const db = new SqliteDatabase(file);
    db.prepare("update pricing_backup_objects set body = x'00' where key like '%/weights.bin'").run();
    db.close();
    const target = join(work, "restored");
    // The probe for a live database checkpoints the WAL into the file (same data): compare the rest.
    const files = async () => (await readdir(target)).filter((f) => !/-(wal|shm)$/.test(f)).sort();
    const before = await files();
    const damaged = await pricing(["db", "restore", file, "--force", "--json", "--data-dir", target]);
    expect(damaged.code).toBe(1);
    expect(JSON.parse(damaged.stderr).error.code).toBe("inconsistent_store");
    expect(await files()).toEqual(before);
    const ctx = await openRestored(target);
    try {
      expect(await ctx.policies.store.checkConsistency("north")).toEqual({ ok: true, problems: [] });
    } finally {
      await ctx.close();
    }
    // --force over a stopped data dir replaces it.
    const forced = await pricing([
      "db",
      "restore",
      join(work, "live.backup"),
      "--force",
      "--json",
      "--data-dir",
      target,
    ]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ replaced: true });
  }, 120_000);
});
