import { PostgresAdapter, type Updateable } from "kysely";
import { monotonicFactory } from "ulid";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import { createFreshReadCache } from "../db/fresh-read-cache.js";
import type { CompaniesTable, CompanyEventRow, CompanyRow } from "../db/schema.js";
import { readEndings, writeEndings } from "./price-endings-column.js";

export interface NewCompany {
  company_id: string;
  name: string;
  timezone: string;
  currency: string;
}

/** A company's settings (DESIGN §8, §10) as the API and the CLI name them; absent fields stay as they are. */
export interface CompanySettings {
  exploration?: "off" | "cautious" | "free";
  auto_approve_updates?: boolean;
  force_rule?: boolean;
  /** Price endings (DESIGN §11) of every product without its own; empty: any minor unit. */
  price_endings?: string[];
}

type SettingField = keyof CompanySettings;

/**
 * Each setting's value as the settings read it and as a row stores it (booleans are 0/1 on both databases). A new
 * setting is one entry here and one field in `CompanySettings`.
 */
const SETTING_COLUMNS: Readonly<
  Record<
    SettingField,
    { read(row: CompanyRow): string | boolean | string[]; write(value: unknown): Updateable<CompaniesTable> }
  >
> = {
  exploration: {
    read: (row) => row.exploration,
    write: (value) => ({ exploration: value as CompanyRow["exploration"] }),
  },
  auto_approve_updates: {
    read: (row) => Number(row.auto_approve_updates) === 1,
    write: (value) => ({ auto_approve_updates: value ? 1 : 0 }),
  },
  force_rule: {
    read: (row) => Number(row.force_rule) === 1,
    write: (value) => ({ force_rule: value ? 1 : 0 }),
  },
  price_endings: {
    read: (row) => readEndings(row.price_endings) ?? [],
    write: (value) => {
      const endings = value as string[];
      return { price_endings: endings.length === 0 ? null : writeEndings(endings) };
    },
  },
};

/** The settings of a company row, every field present. */
export function settingsOf(row: CompanyRow): Required<CompanySettings> {
  const fields = Object.keys(SETTING_COLUMNS) as SettingField[];
  return Object.fromEntries(
    fields.map((f) => [f, SETTING_COLUMNS[f].read(row)]),
  ) as Required<CompanySettings>;
}

/** One recorded change of one setting, its values parsed back from their JSON. */
export interface CompanyEvent {
  event_id: string;
  company_id: string;
  at: string;
  by: string;
  field: string;
  old: unknown;
  new: unknown;
}

function toEvent(row: CompanyEventRow): CompanyEvent {
  return { ...row, old: JSON.parse(row.old) as unknown, new: JSON.parse(row.new) as unknown };
}

export interface SettingsUpdate {
  company: CompanyRow;
  /** The changes this update recorded, in field order: none when every value was already as asked. */
  events: CompanyEvent[];
}

export interface CompanySummary extends CompanyRow {
  partners: string[];
}

export function createCompanyRepository(db: Db, clock: Clock) {
  const mappings = createFreshReadCache<boolean>(db);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Monotonic: the events of one update (one `at`) still list in the order they were recorded.
  const nextId = monotonicFactory();
  return {
    /** Returns false when the id is taken. */
    async create(company: NewCompany): Promise<CompanyRow | undefined> {
      const row: CompanyRow = {
        ...company,
        created_at: clock().toISOString(),
        exploration: "cautious",
        auto_approve_updates: 1,
        force_rule: 0,
        price_endings: null,
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

    /**
     * Changes the given settings and records one `company_events` row per value that changed (old and new as
     * JSON, `by` who asked), in one transaction; a value already as asked records nothing. The row is locked on
     * PostgreSQL so that two concurrent changes record each other's values as `old`; SQLite writes one
     * transaction at a time. Undefined when there is no such company.
     */
    async update(
      companyId: string,
      settings: CompanySettings,
      by: string,
    ): Promise<SettingsUpdate | undefined> {
      return db.transaction().execute(async (trx) => {
        let read = trx.selectFrom("companies").selectAll().where("company_id", "=", companyId);
        if (postgres) read = read.forUpdate();
        const row = await read.executeTakeFirst();
        if (row === undefined) return undefined;
        const at = clock().toISOString();
        const before = settingsOf(row);
        const events: CompanyEventRow[] = [];
        let values: Updateable<CompaniesTable> = {};
        for (const field of Object.keys(SETTING_COLUMNS) as SettingField[]) {
          const value = settings[field];
          if (value === undefined || JSON.stringify(value) === JSON.stringify(before[field])) continue;
          values = { ...values, ...SETTING_COLUMNS[field].write(value) };
          events.push({
            event_id: `cev_${nextId()}`,
            company_id: companyId,
            at,
            by,
            field,
            old: JSON.stringify(before[field]),
            new: JSON.stringify(value),
          });
        }
        if (events.length === 0) return { company: row, events: [] };
        await trx.updateTable("companies").set(values).where("company_id", "=", companyId).execute();
        await trx.insertInto("company_events").values(events).execute();
        const company = await trx
          .selectFrom("companies")
          .selectAll()
          .where("company_id", "=", companyId)
          .executeTakeFirstOrThrow();
        return { company, events: events.map(toEvent) };
      });
    },

    /** A company's recorded setting changes, newest first, and how many there are. */
    async events(
      companyId: string,
      limit: number,
      offset = 0,
    ): Promise<{ total: number; events: CompanyEvent[] }> {
      const [count, rows] = await Promise.all([
        db
          .selectFrom("company_events")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("company_id", "=", companyId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("company_events")
          .selectAll()
          .where("company_id", "=", companyId)
          .orderBy("event_id", "desc")
          .offset(offset)
          .limit(limit)
          .execute(),
      ]);
      return { total: Number(count.n), events: rows.map(toEvent) };
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
