import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPolicyStore } from "./policy-store.js";
import { createPostgresBackend, type PgPool } from "./postgres-backend.js";
import { backendKinds, TEST_PG_URL } from "./test-support/backends.js";
import { weightsFor } from "./test-support/fixtures.js";

/** What only the PostgreSQL backend has: its tables as rows to query, blob sharing, concurrent opening. */
describe.runIf((await backendKinds()).includes("postgres"))("the PostgreSQL backend's tables", () => {
  const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 8 });
  const schema = `ps_tables_${process.pid}_${Date.now().toString(36)}`;
  afterAll(async () => {
    await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
  });
  const rows = async (text: string, values: unknown[] = []) =>
    (await pool.query(text.replaceAll("$s", `"${schema}"`), values)).rows;

  it("creates its tables once when several processes open at the same time", async () => {
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresBackend({ pool: pool as unknown as PgPool, schema })),
    );
    expect(opened).toHaveLength(4);
    const tables = await rows(
      "select table_name from information_schema.tables where table_schema = $1 order by table_name",
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      "policy_store_artifacts",
      "policy_store_blobs",
      "policy_store_rollback_targets",
      "policy_store_slot_events",
      "policy_store_slots",
      "policy_store_version_counters",
      "policy_store_versions",
    ]);
  });

  it("keeps every slot change as an event row, beyond the document's history limit, and the rollback targets", async () => {
    const backend = await createPostgresBackend({ pool: pool as unknown as PgPool, schema });
    const store = createPolicyStore({ backend, historyLimit: 2 });
    const ids: string[] = [];
    for (const [label, auto] of [
      ["m1", true],
      ["m2", false],
      ["m3", false],
    ] as const) {
      const saved = await store.save({ companyId: "acme", manifest: { label }, weights: weightsFor(label) });
      await store.commitTraining({ companyId: "acme", modelId: saved.model_id, autoApprove: auto });
      ids.push(saved.model_id);
    }
    await store.promote("acme", ids[2] ?? "");
    await store.rollback("acme");
    expect((await store.history("acme")).map((e) => e.revision)).toEqual([4, 5]);
    const events = await rows(
      "select revision, action, model_id, replaced_approved from $s.policy_store_slot_events where company_id = $1 order by revision",
      ["acme"],
    );
    expect(events).toEqual([
      { revision: 1, action: "train_auto_approve", model_id: ids[0], replaced_approved: null },
      { revision: 2, action: "train", model_id: ids[1], replaced_approved: ids[0] },
      { revision: 3, action: "train", model_id: ids[2], replaced_approved: ids[0] },
      { revision: 4, action: "promote", model_id: ids[2], replaced_approved: ids[0] },
      { revision: 5, action: "rollback", model_id: ids[0], replaced_approved: ids[2] },
    ]);
    const slot = await rows(
      "select revision, latest_model_id, approved_model_id, previous_approved_model_id from $s.policy_store_slots where company_id = $1",
      ["acme"],
    );
    expect(slot).toEqual([
      { revision: 5, latest_model_id: ids[2], approved_model_id: ids[0], previous_approved_model_id: ids[2] },
    ]);
    const targets = await rows(
      "select model_id from $s.policy_store_rollback_targets where company_id = $1 order by model_id",
      ["acme"],
    );
    expect(targets.map((t) => t.model_id)).toEqual([ids[0], ids[2]].sort());
  });

  it("stores equal bytes once and deletes a blob with the last artifact naming it", async () => {
    const backend = await createPostgresBackend({ pool: pool as unknown as PgPool, schema });
    const store = createPolicyStore({ backend });
    const shared = weightsFor("shared", 4096);
    const a = await store.save({ companyId: "a", manifest: { n: 1 }, weights: shared });
    const b = await store.save({ companyId: "b", manifest: { n: 1 }, weights: shared });
    const count = async (sha: string) =>
      Number((await rows("select count(*) as n from $s.policy_store_blobs where sha256 = $1", [sha]))[0]?.n);
    expect(a.weights_sha256).toBe(b.weights_sha256);
    expect(await count(a.weights_sha256)).toBe(1);
    // Same manifest text too: {"n":1}.
    expect(await count(a.manifest_sha256)).toBe(1);
    await backend.artifacts.delete("a", a.model_id);
    expect(await count(a.weights_sha256)).toBe(1);
    expect((await store.loadArtifact("b", b.model_id)).weights).toEqual(shared);
    await backend.artifacts.delete("b", b.model_id);
    expect(await count(a.weights_sha256)).toBe(0);
  });

  it("refuses a schema name it would have to quote", async () => {
    await expect(
      createPostgresBackend({ pool: pool as unknown as PgPool, schema: 'x"; drop' }),
    ).rejects.toMatchObject({ code: "invalid_input" });
  });
});
