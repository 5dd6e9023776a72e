import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { createTestSchema, TEST_PG_SECRETS, TEST_PG_URL } from "./test-postgres.js";

export interface TestContext {
  ctx: ServerContext;
  dataDir: string;
  /** Closes the context, then drops its schema (PostgreSQL) and its data dir. */
  close(): Promise<void>;
}

/**
 * A server context of one test file on a fresh data dir: its SQLite file, or a fresh schema of the test PostgreSQL
 * (with the secrets PostgreSQL requires).
 */
export async function openTestContext(
  backend: "sqlite" | "postgres",
  label: string,
  clock: () => Date,
): Promise<TestContext> {
  const dataDir = await mkdtemp(join(tmpdir(), `pricing-${label}-`));
  const created = backend === "postgres" ? await createTestSchema(`pricing_${label}`) : undefined;
  const config = created
    ? loadConfig({}, { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS })
    : loadConfig({}, { dataDir });
  const ctx = await createServerContext(config, { clock, ...(created ? { pgSchema: created.schema } : {}) });
  return {
    ctx,
    dataDir,
    async close() {
      await ctx.close();
      await created?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
