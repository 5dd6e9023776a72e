import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.js";
import { createServerContext } from "../../context.js";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "../../db/test-postgres.js";
import { runCli } from "../program.js";

const pgEnabled = await postgresTestsEnabled();

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, io: { out: (t) => out.push(t), err: (t) => err.push(t) } });
  return { code, out: out.join(""), err: err.join("") };
}

const twoHoursAgo = () => new Date(Date.now() - 2 * 3_600_000);

for (const backend of ["folder", "postgres"] as const) {
  describe.skipIf(backend === "postgres" && !pgEnabled)(`pricing store gc and check (${backend})`, () => {
    const schema = `pricing_store_cli_${process.pid}_${Date.now().toString(36)}`;
    const admin = backend === "postgres" ? new pg.Pool({ connectionString: TEST_PG_URL, max: 1 }) : undefined;
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
      await admin?.query(`drop schema if exists "${schema}" cascade`);
      await admin?.end();
    });

    it("sweeps what a killed training left, then finds damage an operator must know about", async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "pricing-store-cli-"));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      let env: NodeJS.ProcessEnv = { PRICING_DATA_DIR: dataDir };
      if (admin !== undefined) {
        await admin.query(`create schema "${schema}"`);
        // The CLI finds the schema the way an operator sets it: in the URL's search_path.
        const url = new URL(TEST_PG_URL);
        url.searchParams.set("options", `-c search_path=${schema}`);
        env = {
          ...env,
          PRICING_DATABASE_URL: url.toString(),
          PRICING_JWT_SECRET: TEST_PG_SECRETS.jwtSecret,
          PRICING_KEY_PEPPER: TEST_PG_SECRETS.keyPepper,
        };
      }
      expect((await run(["init"], env)).code).toBe(0);

      // Two hours ago: a committed model, and one whose training died before taking a slot.
      const ctx = await createServerContext(loadConfig(env), { clock: twoHoursAgo });
      const store = ctx.policies.store;
      const kept = await store.save({
        companyId: "acme",
        manifest: { n: 1 },
        weights: new Uint8Array([1, 2, 3]),
      });
      await store.commitTraining({ companyId: "acme", modelId: kept.model_id });
      const orphan = await store.save({
        companyId: "acme",
        manifest: { n: 2 },
        weights: new Uint8Array([4, 5]),
      });
      await ctx.close();

      const planned = await run(["store", "gc", "--dry-run", "--json"], env);
      expect(planned.code, planned.err).toBe(0);
      expect(JSON.parse(planned.out)).toMatchObject({
        dry_run: true,
        artifacts: [{ company_id: "acme", model_id: orphan.model_id, complete: true }],
      });
      expect((await run(["store", "gc"], env)).out).toContain("removed 1 artifact(s)");
      expect(JSON.parse((await run(["store", "gc", "--json"], env)).out)).toMatchObject({ artifacts: [] });

      const healthy = await run(["store", "check", "--json"], env);
      expect(healthy.code, healthy.err).toBe(0);
      expect(JSON.parse(healthy.out)).toEqual({ ok: true, companies: 1 });

      // Damage behind the store's back: the latest model's weights no longer match their sha256.
      if (admin === undefined) {
        writeFileSync(
          join(dataDir, "artifacts", "companies", "acme", "artifacts", kept.model_id, "weights.bin"),
          "x",
        );
      } else {
        await admin.query(`update "${schema}".policy_store_blobs set bytes = '\\x00' where sha256 = $1`, [
          kept.weights_sha256,
        ]);
      }
      const damaged = await run(["store", "check", "--company", "acme"], env);
      expect(damaged.code).toBe(1);
      expect(damaged.err).toContain("1 of 1 company stores are inconsistent");
      expect(damaged.err).toContain(`acme: latest points at ${kept.model_id}`);
    }, 60_000);
  });
}
