import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import { createFreshReadCache } from "../db/fresh-read-cache.js";
import type { CompanyRow } from "../db/schema.js";

export interface NewCompany {
  company_id: string;
  name: string;
  timezone: string;
  currency: string;
}

/** A company's learning settings (DESIGN §8), as the CLI changes them; absent fields stay as they are. */
export interface CompanySettings {
  exploration?: "off" | "cautious" | "free";
  auto_approve_updates?: boolean;
  force_rule?: boolean;
}

export interface CompanySummary extends CompanyRow {
  partners: string[];
}

export function createCompanyRepository(db: Db, clock: Clock) {
  const mappings = createFreshReadCache<boolean>(db);
  return {
    /** Returns false when the id is taken. */
    async create(company: NewCompany): Promise<CompanyRow | undefined> {
      const row: CompanyRow = {
        ...company,
        created_at: clock().toISOString(),
        exploration: "cautious",
        auto_approve_updates: 1,
        force_rule: 0,
      };
      const result = await db
        .insertInto("companies")
        .values(row)
        .onConflict((oc) => oc.column("company_id").doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0 ? row : undefined;
    },

    async get(companyId: string): Promise<CompanyRow | undefined> {
      return db.selectFrom("companies").selectAll().where("company_id", "=", companyId).executeTakeFirst();
    },

    /** Changes the given settings in one statement; undefined when there is no such company. */
    async update(companyId: string, settings: CompanySettings): Promise<CompanyRow | undefined> {
      const values = {
        ...(settings.exploration === undefined ? {} : { exploration: settings.exploration }),
        ...(settings.auto_approve_updates === undefined
          ? {}
          : { auto_approve_updates: settings.auto_approve_updates ? 1 : 0 }),
        ...(settings.force_rule === undefined ? {} : { force_rule: settings.force_rule ? 1 : 0 }),
      };
      if (Object.keys(values).length > 0) {
        await db.updateTable("companies").set(values).where("company_id", "=", companyId).execute();
      }
      return db.selectFrom("companies").selectAll().where("company_id", "=", companyId).executeTakeFirst();
    },

    async list(): Promise<CompanySummary[]> {
      const companies = await db.selectFrom("companies").selectAll().orderBy("company_id").execute();
      const maps = await db.selectFrom("partner_companies").select(["partner_id", "company_id"]).execute();
      return companies.map((c) => ({
        ...c,
        partners: maps.filter((m) => m.company_id === c.company_id).map((m) => m.partner_id),
      }));
    },

    /** Idempotent: mapping twice is not an error. */
    async map(partnerId: string, companyId: string): Promise<void> {
      await db
        .insertInto("partner_companies")
        .values({ partner_id: partnerId, company_id: companyId, created_at: clock().toISOString() })
        .onConflict((oc) => oc.columns(["partner_id", "company_id"]).doNothing())
        .execute();
    },

    /** Returns false when there was no such mapping. */
    async unmap(partnerId: string, companyId: string): Promise<boolean> {
      const result = await db
        .deleteFrom("partner_companies")
        .where("partner_id", "=", partnerId)
        .where("company_id", "=", companyId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Asked on every data request, so answered from a cache that any database change empties. */
    async isMapped(partnerId: string, companyId: string): Promise<boolean> {
      return mappings.get(`${partnerId}\n${companyId}`, async () => {
        const row = await db
          .selectFrom("partner_companies")
          .select("company_id")
          .where("partner_id", "=", partnerId)
          .where("company_id", "=", companyId)
          .executeTakeFirst();
        return row !== undefined;
      });
    },

    async companiesOf(partnerId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("partner_companies")
        .select("company_id")
        .where("partner_id", "=", partnerId)
        .orderBy("company_id")
        .execute();
      return rows.map((r) => r.company_id);
    },
  };
}

export type CompanyRepository = ReturnType<typeof createCompanyRepository>;
