import { createPolicyStore, createPostgresBackend, type PolicyStore } from "@pricing/policy-store";
import { sql } from "kysely";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Db } from "./database.js";

/**
 * The policy store where the database is: on PostgreSQL, its tables in the same database and schema as ours
 * (created by the store itself, idempotently), so every replica and worker sees one set of artifacts, slots and
 * versions; on SQLite, the artifacts folder of the data dir. `close` releases the store's connections.
 */
export async function openPolicyStore(
  config: Config,
  db: Db,
  clock: Clock,
): Promise<{ store: PolicyStore; close: () => Promise<void> }> {
  if (!config.databaseUrl) {
    return {
      store: createPolicyStore({ root: config.pricing.artifactsDir, clock }),
      close: async () => undefined,
    };
  }
  // The schema our migrations created their tables in: the search_path's first (a test's own schema, or public).
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema ?? "public";
  const backend = await createPostgresBackend({ connectionString: config.databaseUrl, schema });
  return { store: createPolicyStore({ backend, clock }), close: () => backend.close() };
}
