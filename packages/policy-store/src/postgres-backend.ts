import { sha256 } from "./artifact-integrity.js";
import { PolicyStoreError } from "./errors.js";
import { type SlotEvent, SlotStateSchema } from "./schemas.js";
import type { ArtifactBackend, SlotBackend, StoreBackend } from "./store-backend.js";

/** The part of `pg.Pool` the backend uses, so a caller's pool (or a test's instrumented one) fits. */
export interface PgPool {
  connect(): Promise<PgClient>;
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}

export interface PgClient {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  release(error?: Error | boolean): void;
}

export interface PostgresBackendOptions {
  /** A pool owned by the caller (not ended by `close`); or `connectionString` for a pool the backend owns. */
  pool?: PgPool;
  connectionString?: string;
  /** Schema holding the store's tables; created when absent. Default `public`. */
  schema?: string;
}

/** A {@link StoreBackend} on PostgreSQL; `close` ends the pool if the backend opened it. */
export interface PostgresBackend extends StoreBackend {
  readonly schema: string;
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The store's tables. Blobs are content-addressed (the sha256 of their bytes); an artifact row names its
 * manifest and weights blobs and holds its record as stored JSON text; a version claim is a row whose primary
 * key makes a version unique per company, numbered from a per-company counter row; the slot document is one row
 * with a revision column; every slot change is an event row. Rollback targets are a view over the events.
 */
function ddl(s: string): string[] {
  return [
    `create schema if not exists ${s}`,
    `create table if not exists ${s}.policy_store_blobs (
       sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
       bytes bytea not null)`,
    `create table if not exists ${s}.policy_store_version_counters (
       company_id text primary key,
       last_version integer not null check (last_version > 0))`,
    `create table if not exists ${s}.policy_store_versions (
       company_id text not null,
       version integer not null check (version > 0),
       model_id text not null unique,
       claimed_at timestamptz not null,
       claim text not null,
       primary key (company_id, version))`,
    `create table if not exists ${s}.policy_store_artifacts (
       company_id text not null,
       model_id text not null,
       version integer not null,
       record text not null,
       manifest_sha256 text not null references ${s}.policy_store_blobs (sha256),
       weights_sha256 text not null references ${s}.policy_store_blobs (sha256),
       saved_at timestamptz not null default now(),
       primary key (company_id, model_id),
       unique (company_id, version))`,
    `create table if not exists ${s}.policy_store_slots (
       company_id text primary key,
       revision integer not null check (revision >= 0),
       latest_model_id text,
       approved_model_id text,
       previous_approved_model_id text,
       state text not null,
       updated_at timestamptz not null default now())`,
    `create table if not exists ${s}.policy_store_slot_events (
       company_id text not null,
       revision integer not null check (revision > 0),
       at timestamptz not null,
       action text not null,
       model_id text not null,
       version integer not null,
       replaced_latest text,
       replaced_approved text,
       primary key (company_id, revision))`,
    `create or replace view ${s}.policy_store_rollback_targets as
       select company_id, model_id, min(revision) as first_approved_revision
       from (select company_id, model_id, revision from ${s}.policy_store_slot_events where action <> 'train'
             union all
             select company_id, replaced_approved, revision from ${s}.policy_store_slot_events
             where replaced_approved is not null) approvals
       group by company_id, model_id`,
  ];
}

const UNIQUE_VIOLATION = "23505";
const FOREIGN_KEY_VIOLATION = "23503";

function pgCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** pg returns bytea as a Buffer; callers compare bytes with plain Uint8Arrays. */
function bytesOf(value: Uint8Array | null | undefined): Uint8Array | null {
  if (value === null || value === undefined) return null;
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * Opens the policy store's tables in `schema` (creating them, idempotently and safely when several processes open
 * at once) and returns a backend on them. Every write that must be atomic is one transaction: a version claim with
 * its counter, an artifact with its blobs, a slot change with its event rows.
 *
 * @example
 * const backend = await createPostgresBackend({ connectionString: process.env.DATABASE_URL, schema: "pricing" });
 * const store = createPolicyStore({ backend });
 */
export async function createPostgresBackend(options: PostgresBackendOptions): Promise<PostgresBackend> {
  const schema = options.schema ?? "public";
  if (!SCHEMA_NAME.test(schema)) {
    throw new PolicyStoreError("invalid_input", `schema must match ${SCHEMA_NAME.source}`);
  }
  let pool: PgPool;
  let owned = false;
  if (options.pool !== undefined) {
    pool = options.pool;
  } else if (options.connectionString !== undefined) {
    const pg = (await import("pg")).default;
    const own = new pg.Pool({ connectionString: options.connectionString, max: 5 });
    // An idle connection the server drops (a restart, a failover) is an 'error' event that would otherwise end the
    // process; the pool replaces the connection and the next query reports any lasting failure.
    own.on("error", () => undefined);
    pool = own as unknown as PgPool;
    owned = true;
  } else {
    throw new PolicyStoreError("invalid_input", "createPostgresBackend needs pool or connectionString");
  }
  const s = `"${schema}"`;
  const t = {
    blobs: `${s}.policy_store_blobs`,
    counters: `${s}.policy_store_version_counters`,
    versions: `${s}.policy_store_versions`,
    artifacts: `${s}.policy_store_artifacts`,
    slots: `${s}.policy_store_slots`,
    events: `${s}.policy_store_slot_events`,
  };

  async function transaction<T>(work: (client: PgClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("begin");
      const result = await work(client);
      await client.query("commit");
      client.release();
      return result;
    } catch (error) {
      await client.query("rollback").then(
        () => client.release(),
        (rollbackError: unknown) => client.release(rollbackError as Error),
      );
      throw error;
    }
  }

  try {
    // Concurrent `create table if not exists` can collide in the catalog; one opener at a time per schema.
    await transaction(async (client) => {
      await client.query("select pg_advisory_xact_lock(hashtext($1))", [`policy-store-ddl:${schema}`]);
      for (const statement of ddl(s)) await client.query(statement);
    });
  } catch (error) {
    if (owned) await pool.end();
    throw error;
  }

  const slots: SlotBackend = {
    async read(companyId) {
      const { rows } = await pool.query<{ state: string; revision: number }>(
        `select state, revision from ${t.slots} where company_id = $1`,
        [companyId],
      );
      const row = rows[0];
      if (row === undefined) return null;
      try {
        return { state: SlotStateSchema.parse(JSON.parse(row.state)), tag: String(row.revision) };
      } catch {
        throw new PolicyStoreError("corrupt_slots", `slot document of company ${companyId} does not parse`);
      }
    },

    async write(companyId, state, tag) {
      const columns = [
        state.revision,
        state.latest?.model_id ?? null,
        state.approved?.model_id ?? null,
        state.previous_approved,
        JSON.stringify(state),
      ];
      return transaction(async (client) => {
        let previousRevision = 0;
        if (tag === null) {
          const { rows } = await client.query(
            `insert into ${t.slots} (company_id, revision, latest_model_id, approved_model_id,
               previous_approved_model_id, state) values ($1, $2, $3, $4, $5, $6)
             on conflict (company_id) do nothing returning company_id`,
            [companyId, ...columns],
          );
          if (rows.length === 0) return false;
        } else {
          previousRevision = Number(tag);
          // The row lock taken by this update serializes writers; the revision test is the compare.
          const { rows } = await client.query(
            `update ${t.slots} set revision = $2, latest_model_id = $3, approved_model_id = $4,
               previous_approved_model_id = $5, state = $6, updated_at = now()
             where company_id = $1 and revision = $7 returning company_id`,
            [companyId, ...columns, previousRevision],
          );
          if (rows.length === 0) return false;
        }
        const events = state.history.filter((event) => event.revision > previousRevision);
        for (const event of events) await insertEvent(client, companyId, event);
        return true;
      });
    },
  };

  async function insertEvent(client: PgClient, companyId: string, event: SlotEvent): Promise<void> {
    await client.query(
      `insert into ${t.events} (company_id, revision, at, action, model_id, version, replaced_latest,
         replaced_approved) values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (company_id, revision) do nothing`,
      [
        companyId,
        event.revision,
        event.at,
        event.action,
        event.model_id,
        event.version,
        event.replaced_latest,
        event.replaced_approved,
      ],
    );
  }

  /** The bytes of the model's manifest or weights blob, in one round trip; null without the artifact row. */
  async function part(companyId: string, modelId: string, column: "manifest_sha256" | "weights_sha256") {
    const { rows } = await pool.query<{ bytes: Uint8Array | null }>(
      `select b.bytes from ${t.artifacts} a left join ${t.blobs} b on b.sha256 = a.${column}
       where a.company_id = $1 and a.model_id = $2`,
      [companyId, modelId],
    );
    return bytesOf(rows[0]?.bytes);
  }

  /** Retries a transaction that lost a race with a deletion of a blob it relies on (a foreign key violation). */
  async function retryingBlobRace<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (pgCode(error) !== FOREIGN_KEY_VIOLATION || attempt >= 5) throw error;
      }
    }
  }

  const artifacts: ArtifactBackend = {
    async claimVersion(claim) {
      return transaction(async (client) => {
        // The counter row's lock serializes claims of one company across every process and connection.
        const { rows } = await client.query<{ last_version: number }>(
          `insert into ${t.counters} (company_id, last_version) values ($1, 1)
           on conflict (company_id) do update set last_version = ${t.counters}.last_version + 1
           returning last_version`,
          [claim.company_id],
        );
        const version = Number(rows[0]?.last_version);
        await client.query(
          `insert into ${t.versions} (company_id, version, model_id, claimed_at, claim) values ($1, $2, $3, $4, $5)`,
          [
            claim.company_id,
            version,
            claim.model_id,
            claim.claimed_at,
            JSON.stringify({ ...claim, version }),
          ],
        );
        return version;
      });
    },

    async write(record, manifest, weights) {
      const manifestSha = sha256(manifest);
      const weightsSha = sha256(weights);
      await retryingBlobRace(() =>
        transaction(async (client) => {
          for (const [sha, bytes] of [
            [manifestSha, manifest],
            [weightsSha, weights],
          ] as const) {
            await client.query(
              `insert into ${t.blobs} (sha256, bytes) values ($1, $2) on conflict (sha256) do nothing`,
              [sha, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
            );
          }
          try {
            await client.query(
              `insert into ${t.artifacts} (company_id, model_id, version, record, manifest_sha256, weights_sha256,
                 saved_at) values ($1, $2, $3, $4, $5, $6, $7)`,
              [
                record.company_id,
                record.model_id,
                record.version,
                JSON.stringify(record),
                manifestSha,
                weightsSha,
                record.saved_at,
              ],
            );
          } catch (error) {
            if (pgCode(error) === UNIQUE_VIOLATION) {
              throw new PolicyStoreError("invalid_input", `model ${record.model_id} is already stored`);
            }
            throw error;
          }
        }),
      );
    },

    async readRecord(companyId, modelId) {
      const { rows } = await pool.query<{ record: string }>(
        `select record from ${t.artifacts} where company_id = $1 and model_id = $2`,
        [companyId, modelId],
      );
      const row = rows[0];
      if (row === undefined) return null;
      try {
        return JSON.parse(row.record) as unknown;
      } catch {
        throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} does not parse`);
      }
    },

    readManifest: (companyId, modelId) => part(companyId, modelId, "manifest_sha256"),
    readWeights: (companyId, modelId) => part(companyId, modelId, "weights_sha256"),

    async listModels(companyId) {
      // Artifacts are written in one transaction: there are no parts of interrupted saves to report.
      const { rows } = await pool.query<{ model_id: string }>(
        `select model_id from ${t.artifacts} where company_id = $1 order by model_id`,
        [companyId],
      );
      return rows.map((row) => ({ modelId: row.model_id, complete: true }));
    },

    async delete(companyId, modelId) {
      await transaction(async (client) => {
        const { rows } = await client.query<{ manifest_sha256: string; weights_sha256: string }>(
          `delete from ${t.artifacts} where company_id = $1 and model_id = $2
           returning manifest_sha256, weights_sha256`,
          [companyId, modelId],
        );
        for (const sha of new Set(rows.flatMap((row) => [row.manifest_sha256, row.weights_sha256]))) {
          // Another artifact may share the blob (content addressing), or a concurrent save may be about to:
          // a foreign key violation rolls back to the savepoint and the blob stays.
          await client.query("savepoint blob");
          try {
            await client.query(
              `delete from ${t.blobs} b where b.sha256 = $1 and not exists (
                 select 1 from ${t.artifacts} a where a.manifest_sha256 = $1 or a.weights_sha256 = $1)`,
              [sha],
            );
            await client.query("release savepoint blob");
          } catch (error) {
            if (pgCode(error) !== FOREIGN_KEY_VIOLATION) throw error;
            await client.query("rollback to savepoint blob");
          }
        }
      });
    },

    async versionClaims(companyId) {
      const { rows } = await pool.query<{ version: number; claim: string }>(
        `select version, claim from ${t.versions} where company_id = $1 order by version`,
        [companyId],
      );
      return rows.map((row) => {
        let claim = null;
        try {
          claim = JSON.parse(row.claim);
        } catch {
          claim = null;
        }
        return { label: `${t.versions} version ${row.version}`, version: Number(row.version), claim };
      });
    },
  };

  return {
    schema,
    slots,
    artifacts,
    async listCompanies() {
      const { rows } = await pool.query<{ company_id: string }>(
        `select company_id from ${t.slots} union select company_id from ${t.versions}
         union select company_id from ${t.artifacts} order by company_id`,
      );
      // Sorted in JavaScript too: the database's collation may order differently from the file backend.
      return rows.map((row) => row.company_id).sort();
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
