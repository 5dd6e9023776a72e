import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from "@pricing/http-adapter";
import type { Db } from "../db/database.js";

const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);

/**
 * Bodies from this size on are stored gzipped (in base64 after `GZIP_MARK`): a 40,000-price compute answer is
 * some 10 MB of JSON, about a tenth of it gzipped. zlib's async calls compress on libuv's threads, off the event
 * loop. A stored JSON body starts with `{` or `[`, so the mark cannot be mistaken for one.
 */
const GZIP_FROM_BYTES = 64 * 1024;
const GZIP_MARK = "gzip:";

async function storedBody(body: string): Promise<string> {
  if (body.length < GZIP_FROM_BYTES) return body;
  return GZIP_MARK + (await gzipped(Buffer.from(body, "utf8"))).toString("base64");
}

async function bodyOf(stored: string): Promise<string> {
  if (!stored.startsWith(GZIP_MARK)) return stored;
  return (await gunzipped(Buffer.from(stored.slice(GZIP_MARK.length), "base64"))).toString("utf8");
}

/** Expired rows are deleted at most this often per process, by the next claim (nothing else reads them). */
const PURGE_EVERY_MS = 10 * 60_000;
/** A claim races a release at most this many times before it reports the key as in progress. */
const CLAIM_ATTEMPTS = 3;

export interface IdempotencyKeysRepository extends IdempotencyStore {
  /** Deletes the rows expired at `now`; returns how many. */
  purgeExpired(now: string): Promise<number>;
}

/**
 * The adapter's `IdempotencyStore` over the `idempotency_keys` table (migration 0006). Each step is one
 * statement, atomic on SQLite and PostgreSQL alike: the insert that claims a key conflicts on the primary key, the
 * take-over is an update conditioned on the row being expired or its lease over, and complete, renew and release
 * only touch the row the caller still owns.
 */
export function createIdempotencyKeysRepository(db: Db): IdempotencyKeysRepository {
  let lastPurge = Number.NEGATIVE_INFINITY;
  const row = (partnerId: string, key: string) =>
    db
      .selectFrom("idempotency_keys")
      .select(["fingerprint", "response_status", "response_headers", "response_body"])
      .where("partner_id", "=", partnerId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();

  const repository: IdempotencyKeysRepository = {
    async purgeExpired(now) {
      const result = await db
        .deleteFrom("idempotency_keys")
        .where("expires_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async claim(input): Promise<IdempotencyClaim> {
      const { partnerId, key, fingerprint, owner, now, leaseUntil, expiresAt } = input;
      if (Date.parse(now) - lastPurge >= PURGE_EVERY_MS) {
        lastPurge = Date.parse(now);
        await repository.purgeExpired(now);
      }
      const fresh = {
        fingerprint,
        owner,
        created_at: now,
        expires_at: expiresAt,
        lease_until: leaseUntil,
        response_status: null,
        response_headers: null,
        response_body: null,
      };
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
        const inserted = await db
          .insertInto("idempotency_keys")
          .values({ partner_id: partnerId, idempotency_key: key, ...fresh })
          .onConflict((oc) => oc.columns(["partner_id", "idempotency_key"]).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { claimed: true };
        // Past its 24 h, or in progress with nobody renewing its lease (the process died): start over.
        const taken = await db
          .updateTable("idempotency_keys")
          .set(fresh)
          .where("partner_id", "=", partnerId)
          .where("idempotency_key", "=", key)
          .where((eb) =>
            eb.or([
              eb("expires_at", "<=", now),
              eb.and([eb("response_status", "is", null), eb("lease_until", "<=", now)]),
            ]),
          )
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return { claimed: true };
        const found = await row(partnerId, key);
        // Released between the insert and the read: try again.
        if (found === undefined) continue;
        const response: StoredResponse | null =
          found.response_status === null
            ? null
            : {
                status: found.response_status,
                headers: JSON.parse(found.response_headers ?? "{}") as Record<string, string>,
                body: await bodyOf(found.response_body ?? ""),
              };
        return { claimed: false, record: { fingerprint: found.fingerprint, response } };
      }
      return { claimed: false, record: { fingerprint, response: null } };
    },

    async renew(partnerId, key, owner, leaseUntil) {
      await db
        .updateTable("idempotency_keys")
        .set({ lease_until: leaseUntil })
        .where("partner_id", "=", partnerId)
        .where("idempotency_key", "=", key)
        .where("owner", "=", owner)
        .where("response_status", "is", null)
        .execute();
    },

    async complete(partnerId, key, owner, response) {
      const body = await storedBody(response.body);
      await db
        .updateTable("idempotency_keys")
        .set({
          response_status: response.status,
          response_headers: JSON.stringify(response.headers),
          response_body: body,
        })
        .where("partner_id", "=", partnerId)
        .where("idempotency_key", "=", key)
        .where("owner", "=", owner)
        .where("response_status", "is", null)
        .execute();
    },

    async release(partnerId, key, owner) {
      await db
        .deleteFrom("idempotency_keys")
        .where("partner_id", "=", partnerId)
        .where("idempotency_key", "=", key)
        .where("owner", "=", owner)
        .where("response_status", "is", null)
        .execute();
    },
  };
  return repository;
}
