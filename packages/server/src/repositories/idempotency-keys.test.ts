import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IdempotencyClaimInput } from "@pricing/http-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Db } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { createTestSchema, postgresTestsEnabled, TEST_PG_URL } from "../db/test-postgres.js";
import { createIdempotencyKeysRepository } from "./idempotency-keys.js";

const T0 = "2026-03-10T03:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const DAY = 24 * 3600;

function claimAt(seconds: number, owner: string, fingerprint = "fp-a"): IdempotencyClaimInput {
  return {
    partnerId: "ptr_1",
    key: "k",
    fingerprint,
    owner,
    now: at(seconds),
    leaseUntil: at(seconds + 60),
    expiresAt: at(seconds + DAY),
  };
}

const response = {
  status: 200,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: '{"a":1}',
};

function contract(open: () => Promise<Db>) {
  let db: Db;
  beforeAll(async () => {
    db = await open();
    await migrateToLatest(db);
  });
  afterAll(async () => db?.destroy());

  it("claims once; others see it in progress, then the stored response; only the owner changes it", async () => {
    const keys = createIdempotencyKeysRepository(db);
    expect(await keys.claim(claimAt(0, "o1"))).toEqual({ claimed: true });
    expect(await keys.claim(claimAt(1, "o2", "fp-b"))).toEqual({
      claimed: false,
      record: { fingerprint: "fp-a", response: null },
    });
    // Another partner's same key is another row.
    expect(await keys.claim({ ...claimAt(1, "o3"), partnerId: "ptr_2" })).toEqual({ claimed: true });
    await keys.complete("ptr_1", "k", "o2", { ...response, body: "forged" });
    await keys.complete("ptr_1", "k", "o1", response);
    expect(await keys.claim(claimAt(2, "o4"))).toEqual({
      claimed: false,
      record: { fingerprint: "fp-a", response },
    });
    // A completed record is not released, and holds its key for 24 h, even past its lease.
    await keys.release("ptr_1", "k", "o1");
    expect(await keys.claim(claimAt(3600, "o5"))).toMatchObject({ claimed: false, record: { response } });
    // Past 24 h it is taken over, and the purge removes what expired.
    expect(await keys.claim(claimAt(DAY, "o6", "fp-c"))).toEqual({ claimed: true });
    expect(await keys.purgeExpired(at(2 * DAY + 1))).toBe(2);
  });

  it("stores a large answer gzipped and replays it byte for byte", async () => {
    const keys = createIdempotencyKeysRepository(db);
    const items = Array.from({ length: 5_000 }, (_, i) => ({ product_id: `sku-${i}`, price: 10 + i / 100 }));
    const large = { ...response, body: JSON.stringify({ recommendations: items, text: "ünïcode" }) };
    expect(await keys.claim({ ...claimAt(0, "g1"), key: "large" })).toEqual({ claimed: true });
    await keys.complete("ptr_1", "large", "g1", large);
    const stored = await db
      .selectFrom("idempotency_keys")
      .select("response_body")
      .where("idempotency_key", "=", "large")
      .executeTakeFirstOrThrow();
    expect(stored.response_body?.startsWith("gzip:")).toBe(true);
    expect(stored.response_body?.length).toBeLessThan(large.body.length / 4);
    expect(await keys.claim({ ...claimAt(1, "g2"), key: "large" })).toEqual({
      claimed: false,
      record: { fingerprint: "fp-a", response: large },
    });
  });

  it("a dead request's in-progress record is taken over after its lease; a renewed one is not", async () => {
    const keys = createIdempotencyKeysRepository(db);
    const input = { ...claimAt(0, "a"), key: "lease" };
    expect(await keys.claim(input)).toEqual({ claimed: true });
    await keys.renew("ptr_1", "lease", "a", at(120));
    expect(await keys.claim({ ...claimAt(90, "b"), key: "lease" })).toMatchObject({ claimed: false });
    expect(await keys.claim({ ...claimAt(121, "b"), key: "lease" })).toEqual({ claimed: true });
    // The first owner, back from the dead, can no longer complete or release it.
    await keys.complete("ptr_1", "lease", "a", response);
    await keys.release("ptr_1", "lease", "a");
    expect(await keys.claim({ ...claimAt(122, "c"), key: "lease" })).toEqual({
      claimed: false,
      record: { fingerprint: "fp-a", response: null },
    });
    // Released by its owner (a 5xx), the key is free at once.
    await keys.release("ptr_1", "lease", "b");
    expect(await keys.claim({ ...claimAt(123, "c"), key: "lease" })).toEqual({ claimed: true });
  });
}

describe("idempotency keys repository (SQLite)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-idem-"));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  contract(async () => createDatabase({ dataDir }));
});

const pgEnabled = await postgresTestsEnabled();

describe.skipIf(!pgEnabled)("idempotency keys repository (PostgreSQL)", () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  contract(async () => {
    const created = await createTestSchema("pricing_idem_repo");
    drop = created.drop;
    return createDatabase({ dataDir: tmpdir(), databaseUrl: TEST_PG_URL, pgSchema: created.schema });
  });
});
