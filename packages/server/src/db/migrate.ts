import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  PostgresAdapter,
  sql,
} from "kysely";
import * as initial from "./migrations/0001-initial.js";
import * as batchOutcomes from "./migrations/0002-batch-outcomes.js";
import * as partnerTokenGeneration from "./migrations/0003-partner-token-generation.js";
import * as keyPepperId from "./migrations/0004-key-pepper-id.js";
import * as companyLearning from "./migrations/0005-company-learning.js";
import * as idempotencyKeys from "./migrations/0006-idempotency-keys.js";
import * as operations from "./migrations/0007-operations.js";
import * as webhooks from "./migrations/0010-webhooks.js";
import * as recommendationExplanations from "./migrations/0011-recommendation-explanations.js";
import * as promotions from "./migrations/0012-promotions.js";
import * as backtests from "./migrations/0013-backtests.js";
import * as operationOwner from "./migrations/0014-operation-owner.js";
import * as companyEvents from "./migrations/0015-company-events.js";
import * as printablePrices from "./migrations/0018-printable-prices.js";
import * as recommendationDays from "./migrations/0019-recommendation-days.js";
import type { Database } from "./schema.js";

/** Migrations are compiled in, not read from a folder, so they run the same under tsx, a bundle or a test. */
const MIGRATIONS: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-batch-outcomes": batchOutcomes,
  "0003-partner-token-generation": partnerTokenGeneration,
  "0004-key-pepper-id": keyPepperId,
  "0005-company-learning": companyLearning,
  "0006-idempotency-keys": idempotencyKeys,
  "0007-operations": operations,
  "0010-webhooks": webhooks,
  "0011-recommendation-explanations": recommendationExplanations,
  "0012-promotions": promotions,
  "0013-backtests": backtests,
  "0014-operation-owner": operationOwner,
  "0015-company-events": companyEvents,
  "0018-printable-prices": printablePrices,
  "0019-recommendation-days": recommendationDays,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export interface MigrationReport {
  applied: string[];
}

async function migrate(
  db: Kysely<Database>,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<MigrationReport> {
  // Told no schema, Kysely takes its lock table found in any schema for this one's: with several schemas in one
  // database (tests in parallel, two deployments), another's would pass and the lock query would then fail.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider,
    // Numbers are handed out to branches ahead of their merge: a database may have run 0015 before 0014 arrived.
    allowUnorderedMigrations: true,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const result = await step(migrator);
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  return {
    applied: (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName),
  };
}

/** Brings the schema to the latest migration; throws (leaving earlier migrations applied) on failure. */
export function migrateToLatest(db: Kysely<Database>): Promise<MigrationReport> {
  return migrate(db, (m) => m.migrateToLatest());
}

/** Brings the schema up or down to the named migration (a migration's test starts from the one before it). */
export function migrateTo(db: Kysely<Database>, name: string): Promise<MigrationReport> {
  if (!(name in MIGRATIONS)) throw new Error(`no migration ${name}`);
  return migrate(db, (m) => m.migrateTo(name));
}
