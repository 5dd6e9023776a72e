/**
 * The contract suite's backends: every store test runs once per backend returned by {@link backendKinds}, on a
 * fresh folder or a fresh PostgreSQL schema, and damages or inspects stored data only through a {@link Fixture}.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { FsObjectStore } from "../fs-object-store.js";
import { createObjectStoreBackend } from "../object-store-backend.js";
import { createPolicyStore, type PolicyStore, type PolicyStoreOptions } from "../policy-store.js";
import { createPostgresBackend, type PgPool } from "../postgres-backend.js";
import type { StoreBackend } from "../store-backend.js";
import { makeTempDir } from "./temp-dir.js";

export type BackendKind = "file" | "postgres";
export type ArtifactPart = "record" | "manifest" | "weights";

/** The PostgreSQL the tests use: `PRICING_TEST_PG_URL`, else the local server CI provides. */
export const TEST_PG_URL = process.env.PRICING_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * The backends to test: the file one always; PostgreSQL under CI (where a server that is down fails the tests
 * loudly), elsewhere only when reachable.
 */
export async function backendKinds(): Promise<BackendKind[]> {
  if (process.env.CI) return ["file", "postgres"];
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return ["file", "postgres"];
  } catch {
    process.stderr.write("PostgreSQL is not reachable: policy-store tests run on the file backend only\n");
    return ["file"];
  } finally {
    await client.end().catch(() => undefined);
  }
}

const encoder = new TextEncoder();

export interface Fixture {
  kind: BackendKind;
  /** What a child process passes to {@link openSpec} to open the same data. */
  spec: string;
  backend: StoreBackend;
  store: PolicyStore;
  /** Another store on the same data (e.g. with another clock). */
  open(options?: Omit<PolicyStoreOptions, "backend" | "root" | "objectStore">): PolicyStore;
  /** A stored part's bytes exactly as stored, or null. */
  readPart(companyId: string, modelId: string, part: ArtifactPart): Promise<Uint8Array | null>;
  /** Overwrites a stored part behind the store's back (null deletes it), like damage on disk. */
  writePart(companyId: string, modelId: string, part: ArtifactPart, bytes: Uint8Array | null): Promise<void>;
  /** Rows of a table of the PostgreSQL store (for what no store call shows, e.g. blobs). */
  countRows(table: string): Promise<number>;
  /** Overwrites the slot document with any text. */
  writeSlotsText(companyId: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

let schemas = 0;

/** A fresh store of `kind`: a temp folder, or a new schema in the test database. */
export async function openFixture(
  kind: BackendKind,
  label: string,
  options: Omit<PolicyStoreOptions, "backend" | "root" | "objectStore"> = {},
): Promise<Fixture> {
  return kind === "file" ? openFileFixture(label, options) : openPostgresFixture(label, options);
}

function openFileFixture(label: string, options: Omit<PolicyStoreOptions, "backend">): Fixture {
  const temp = makeTempDir(label);
  const file = (companyId: string, modelId: string, part: ArtifactPart) =>
    join(temp.dir, "companies", companyId, "artifacts", modelId, partFile[part]);
  const backend = createObjectStoreBackend(new FsObjectStore({ root: temp.dir }));
  return {
    kind: "file",
    spec: `file:${temp.dir}`,
    backend,
    store: createPolicyStore({ ...options, root: temp.dir }),
    open: (more) => createPolicyStore({ ...options, ...more, root: temp.dir }),
    async readPart(companyId, modelId, part) {
      try {
        return new Uint8Array(readFileSync(file(companyId, modelId, part)));
      } catch {
        return null;
      }
    },
    async writePart(companyId, modelId, part, bytes) {
      if (bytes === null) rmSync(file(companyId, modelId, part), { force: true });
      else writeFileSync(file(companyId, modelId, part), bytes);
    },
    async writeSlotsText(companyId, text) {
      writeFileSync(join(temp.dir, "companies", companyId, "slots.json"), text);
    },
    countRows: async () => {
      throw new Error("the folder store has no tables");
    },
    remove: async () => temp.remove(),
  };
}

const partFile: Record<ArtifactPart, string> = {
  record: "record.json",
  manifest: "manifest.json",
  weights: "weights.bin",
};

async function openPostgresFixture(
  label: string,
  options: Omit<PolicyStoreOptions, "backend">,
): Promise<Fixture> {
  schemas += 1;
  const schema = `ps_${label.replace(/[^a-z0-9]/g, "_")}_${process.pid}_${schemas}_${Date.now().toString(36)}`;
  const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 4 });
  const backend = await createPostgresBackend({ pool: pool as unknown as PgPool, schema });
  const s = `"${schema}"`;
  const blobColumn = (part: "manifest" | "weights") => `${part}_sha256`;
  const query = async <R extends object>(text: string, values: unknown[]) =>
    (await pool.query(text, values)).rows as R[];
  return {
    kind: "postgres",
    spec: `postgres:${schema}`,
    backend,
    store: createPolicyStore({ ...options, backend }),
    open: (more) => createPolicyStore({ ...options, ...more, backend }),
    async readPart(companyId, modelId, part) {
      if (part === "record") {
        const rows = await query<{ record: string }>(
          `select record from ${s}.policy_store_artifacts where company_id = $1 and model_id = $2`,
          [companyId, modelId],
        );
        return rows[0] === undefined ? null : encoder.encode(rows[0].record);
      }
      const rows = await query<{ bytes: Buffer }>(
        `select b.bytes from ${s}.policy_store_artifacts a join ${s}.policy_store_blobs b
           on b.sha256 = a.${blobColumn(part)} where a.company_id = $1 and a.model_id = $2`,
        [companyId, modelId],
      );
      return rows[0] === undefined ? null : new Uint8Array(rows[0].bytes);
    },
    async writePart(companyId, modelId, part, bytes) {
      if (part === "record") {
        if (bytes === null) {
          await query(`delete from ${s}.policy_store_artifacts where company_id = $1 and model_id = $2`, [
            companyId,
            modelId,
          ]);
        } else {
          await query(
            `update ${s}.policy_store_artifacts set record = $3 where company_id = $1 and model_id = $2`,
            [companyId, modelId, new TextDecoder().decode(bytes)],
          );
        }
        return;
      }
      const target = `(select ${blobColumn(part)} from ${s}.policy_store_artifacts where company_id = $1 and model_id = $2)`;
      if (bytes !== null) {
        await query(`update ${s}.policy_store_blobs set bytes = $3 where sha256 = ${target}`, [
          companyId,
          modelId,
          Buffer.from(bytes),
        ]);
        return;
      }
      // A lost blob: only possible behind the foreign key's back (the test user is a superuser).
      const client = await pool.connect();
      try {
        await client.query("begin");
        await client.query("set local session_replication_role = replica");
        await client.query(`delete from ${s}.policy_store_blobs where sha256 = ${target}`, [
          companyId,
          modelId,
        ]);
        await client.query("commit");
      } finally {
        client.release();
      }
    },
    async countRows(table) {
      const rows = await query<{ n: string }>(`select count(*) as n from ${s}.${table}`, []);
      return Number(rows[0]?.n);
    },
    async writeSlotsText(companyId, text) {
      await query(`update ${s}.policy_store_slots set state = $2 where company_id = $1`, [companyId, text]);
    },
    async remove() {
      await pool.query(`drop schema if exists ${s} cascade`);
      await pool.end();
    },
  };
}

/**
 * Opens the store a fixture's `spec` names, in a child process. `onQuery` sees each PostgreSQL statement before
 * it is sent (the crash test kills the process there); `onWriteStep` each write step of the folder store.
 */
export async function openSpec(
  spec: string,
  hooks: { onWriteStep?: () => void; onQuery?: () => void } = {},
): Promise<{ store: PolicyStore; backend: StoreBackend; close: () => Promise<void> }> {
  if (spec.startsWith("file:")) {
    const objects = new FsObjectStore({ root: spec.slice(5), onWriteStep: hooks.onWriteStep });
    const backend = createObjectStoreBackend(objects);
    return { store: createPolicyStore({ backend }), backend, close: async () => undefined };
  }
  const schema = spec.slice("postgres:".length);
  const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 4 });
  // Statements of opening (the tables' DDL) are not counted: a kill lands in the store's own work.
  let opened = false;
  const onQuery = () => {
    if (opened) hooks.onQuery?.();
  };
  const counted: PgPool = {
    query: (text, values) => {
      onQuery();
      return pool.query(text, values);
    },
    connect: async () => {
      const client = await pool.connect();
      return {
        query: (text, values) => {
          onQuery();
          return client.query(text, values);
        },
        release: (error) => client.release(error),
      } as ReturnType<PgPool["connect"]> extends Promise<infer C> ? C : never;
    },
    end: () => pool.end(),
  };
  const backend = await createPostgresBackend({ pool: counted, schema });
  opened = true;
  return { store: createPolicyStore({ backend }), backend, close: () => pool.end() };
}
