import { ulid } from "ulid";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import { createFreshReadCache } from "../db/fresh-read-cache.js";
import type { KeyPairRow, PartnerRow } from "../db/schema.js";

export interface NewKeyPair {
  access_key: string;
  secret_hash: string;
  pepper_id: string;
}

export interface PartnerSummary {
  partner_id: string;
  name: string;
  created_at: string;
  disabled_at: string | null;
  /** The access key that currently mints tokens; null if none. */
  access_key: string | null;
  companies: string[];
}

/** Credentials lookup for the token exchange. */
export interface CredentialRow {
  partner_id: string;
  secret_hash: string;
  pepper_id: string | null;
  superseded_at: string | null;
  disabled_at: string | null;
  token_generation: number;
}

export function createPartnerRepository(db: Db, clock: Clock) {
  const generations = createFreshReadCache<number | null>(db);
  return {
    async create(name: string, keys: NewKeyPair): Promise<PartnerRow> {
      const now = clock().toISOString();
      const partner: PartnerRow = {
        partner_id: `ptr_${ulid()}`,
        name,
        created_at: now,
        disabled_at: null,
        token_generation: 0,
      };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto("partners").values(partner).execute();
        await trx
          .insertInto("key_pairs")
          .values({
            key_id: `key_${ulid()}`,
            partner_id: partner.partner_id,
            access_key: keys.access_key,
            secret_hash: keys.secret_hash,
            pepper_id: keys.pepper_id,
            created_at: now,
          })
          .execute();
      });
      return partner;
    },

    async get(partnerId: string): Promise<PartnerRow | undefined> {
      return db.selectFrom("partners").selectAll().where("partner_id", "=", partnerId).executeTakeFirst();
    },

    /**
     * The token generation the partner's tokens must carry; null for a disabled or unknown partner. Asked on every
     * data request: cached until any database change.
     */
    async acceptedTokenGeneration(partnerId: string): Promise<number | null> {
      return generations.get(partnerId, async () => {
        const row = await db
          .selectFrom("partners")
          .select(["disabled_at", "token_generation"])
          .where("partner_id", "=", partnerId)
          .executeTakeFirst();
        return row !== undefined && row.disabled_at === null ? Number(row.token_generation) : null;
      });
    },

    /** Supersedes every active pair of the partner and adds the new one, atomically. */
    async rotateKeys(partnerId: string, keys: NewKeyPair): Promise<KeyPairRow> {
      const now = clock().toISOString();
      const row: KeyPairRow = {
        key_id: `key_${ulid()}`,
        partner_id: partnerId,
        // Picked field by field so a caller's plaintext secret can never reach the table.
        access_key: keys.access_key,
        secret_hash: keys.secret_hash,
        pepper_id: keys.pepper_id,
        created_at: now,
        superseded_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable("key_pairs")
          .set({ superseded_at: now })
          .where("partner_id", "=", partnerId)
          .where("superseded_at", "is", null)
          .execute();
        await trx.insertInto("key_pairs").values(row).execute();
      });
      return row;
    },

    /**
     * Returns false when the partner does not exist. Disabling also moves the token generation on, so that every
     * token minted before stays revoked after a later enable.
     */
    async setDisabled(partnerId: string, disabled: boolean): Promise<boolean> {
      const result = await db
        .updateTable("partners")
        .set((eb) =>
          disabled
            ? { disabled_at: clock().toISOString(), token_generation: eb("token_generation", "+", 1) }
            : { disabled_at: null },
        )
        .where("partner_id", "=", partnerId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Gives the key pairs stored before hashes named their pepper the id of `pepperId` (the current one). */
    async assignPepperToUnnamedHashes(pepperId: string): Promise<void> {
      await db.updateTable("key_pairs").set({ pepper_id: pepperId }).where("pepper_id", "is", null).execute();
    },

    async list(): Promise<PartnerSummary[]> {
      const partners = await db
        .selectFrom("partners")
        .selectAll()
        .orderBy("created_at")
        .orderBy("partner_id")
        .execute();
      const keys = await db
        .selectFrom("key_pairs")
        .select(["partner_id", "access_key"])
        .where("superseded_at", "is", null)
        .execute();
      const maps = await db
        .selectFrom("partner_companies")
        .select(["partner_id", "company_id"])
        .orderBy("company_id")
        .execute();
      return partners.map((p) => ({
        ...p,
        access_key: keys.find((k) => k.partner_id === p.partner_id)?.access_key ?? null,
        companies: maps.filter((m) => m.partner_id === p.partner_id).map((m) => m.company_id),
      }));
    },

    async findCredentials(accessKey: string): Promise<CredentialRow | undefined> {
      return db
        .selectFrom("key_pairs")
        .innerJoin("partners", "partners.partner_id", "key_pairs.partner_id")
        .select([
          "key_pairs.partner_id",
          "key_pairs.secret_hash",
          "key_pairs.pepper_id",
          "key_pairs.superseded_at",
          "partners.disabled_at",
          "partners.token_generation",
        ])
        .where("key_pairs.access_key", "=", accessKey)
        .executeTakeFirst();
    },
  };
}

export type PartnerRepository = ReturnType<typeof createPartnerRepository>;
