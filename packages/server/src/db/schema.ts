import type { Generated, Insertable, Selectable } from "kysely";

/**
 * Table shapes. Timestamps are RFC 3339 UTC strings and dates `YYYY-MM-DD` strings, stored as text on both SQLite
 * and PostgreSQL so every query reads the same values on either.
 */
export interface PartnersTable {
  partner_id: string;
  name: string;
  created_at: string;
  disabled_at: string | null;
  /** Tokens carry the generation they were minted in; disabling the partner moves it on (revoking them all). */
  token_generation: number;
}

export interface KeyPairsTable {
  key_id: string;
  partner_id: string;
  access_key: string;
  /** HMAC-SHA256 of the secret under the server pepper, hex. */
  secret_hash: string;
  /** Id of that pepper; null only between the migration that added it and the server's next start. */
  pepper_id: string | null;
  created_at: string;
  superseded_at: string | null;
}

export interface CompaniesTable {
  company_id: string;
  name: string;
  timezone: string;
  currency: string;
  created_at: string;
  /** How far prices may leave the observed range (migration 0005). */
  exploration: Generated<"off" | "cautious" | "free">;
  /** 1: a nightly refresh that passes the safety gate is approved; 0: it waits in `latest`. */
  auto_approve_updates: Generated<number>;
  /** 1: the rule serves, whatever the slots hold (the operator's kill switch). */
  force_rule: Generated<number>;
  /** JSON array of price endings (DESIGN §11; migration 0018); null: none. */
  price_endings: Generated<string | null>;
}

export interface PartnerCompaniesTable {
  partner_id: string;
  company_id: string;
  created_at: string;
}

export interface ProductsTable {
  company_id: string;
  product_id: string;
  name: string | null;
  currency: string;
  base_price: number;
  unit_cost: number | null;
  min_price: number | null;
  max_price: number | null;
  max_daily_change: number | null;
  stock: number | null;
  season_end: string | null;
  updated_at: string;
  /** JSON array of the product's own price endings (migration 0018); null: the company's; "[]": none. */
  price_endings: Generated<string | null>;
}

export interface SalesTable {
  company_id: string;
  product_id: string;
  date: string;
  price: number;
  units_sold: number;
  stock_on_hand: number | null;
  /** A known promotion that day: 0/1 or a share in [0, 1]; 0 where the file gave none (migration 0012). */
  promoted: Generated<number>;
}

/** A planned (or past) promotion of one product on one day (migration 0012); none planned reads as 0. */
export interface PromotionsTable {
  company_id: string;
  product_id: string;
  date: string;
  /** 0/1 or a share in [0, 1]. */
  promoted: number;
}

export interface RunsTable {
  run_id: string;
  company_id: string;
  kind: "nightly" | "on_demand";
  as_of: string;
  created_at: string;
  source: "approved" | "latest" | "rule";
  model_id: string | null;
  start_date: string;
  end_date: string;
  products: number;
  recommendation_count: number;
}

/**
 * A run's recommendations of one date (migration 0019; `repositories/recommendation-days.ts` holds the format):
 * one row per (run, date) instead of one per item.
 */
export interface RecommendationDaysTable {
  run_id: string;
  date: string;
  /** The day's items as a JSON document of columns, in product_id order. */
  items: string;
  /** The items' explanations (or nulls) as a JSON array; null when none has one. */
  explanations: string | null;
}

/** One row per company per nightly batch attempt (migration 0002). */
export interface BatchOutcomesTable {
  batch_id: string;
  company_id: string;
  as_of: string;
  trigger: "schedule" | "catch_up" | "cli" | "api";
  /**
   * `interrupted`: the process was stopping (the company's run failed with it, or was never started); unlike
   * `failed`, the next start's catch-up runs the company again.
   */
  status: "created" | "exists" | "failed" | "interrupted";
  run_id: string | null;
  error: string | null;
  started_at: string;
  finished_at: string;
}

/** One row per partner and Idempotency-Key (migration 0006); the response columns are null while in progress. */
export interface IdempotencyKeysTable {
  partner_id: string;
  idempotency_key: string;
  fingerprint: string;
  /** The claiming request's random id: only it renews, completes or releases the row. */
  owner: string;
  created_at: string;
  expires_at: string;
  lease_until: string;
  response_status: number | null;
  /** JSON object of the replayed headers. */
  response_headers: string | null;
  response_body: string | null;
}

/** One asynchronous operation (migration 0007): today only `train`. JSON columns are text on both databases. */
export interface OperationsTable {
  operation_id: string;
  kind: "train";
  company_id: string;
  status: "queued" | "running" | "succeeded" | "failed";
  /** The request, JSON (`{company_id, auto_approve}`). */
  input: string;
  progress: number | null;
  /** The train response, JSON, once succeeded. */
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  /** The artifact saved by the attempt that is committing it: a retry finds it committed and does not train again. */
  model_id: string | null;
  /** Times a worker started it (a retried job counts again). */
  attempts: number;
  /** The process that started it last (`process-owner.ts`, migration 0014); null before it started. */
  owner: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
}

/** A partner's webhook endpoint (migration 0010); removed endpoints stay for the deliveries that name them. */
export interface WebhookEndpointsTable {
  endpoint_id: string;
  partner_id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  /** `whsec_` + base64 of the signing key. */
  secret: string;
  created_at: string;
  removed_at: string | null;
}

/** One reported change (migration 0010); `dedupe_key` names the change, so recording it twice is a no-op. */
export interface WebhookEventsTable {
  /** `msg_` + ULID: the `webhook-id` header, the same on every endpoint and every retry. */
  event_id: string;
  dedupe_key: string;
  type: string;
  company_id: string;
  /** The signed body, `{type, timestamp, data}`. */
  payload: string;
  created_at: string;
}

/** One event to one endpoint (migration 0010). */
export interface WebhookDeliveriesTable {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  /** When it is due; a claim moves it past the claim's lease, so a dead dispatcher's claim runs out. */
  next_attempt_at: string;
  /** The dispatcher holding the current attempt's claim. */
  claimed_by: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** One saved backtest report (migration 0013): `pricing backtest --save`, read by the console. */
export interface BacktestsTable {
  /** `bt_` + ULID. */
  backtest_id: string;
  company_id: string;
  created_at: string;
  /** Who ran it: "operator" from the CLI, `console:<name>` from the console. */
  by: string;
  from_date: string;
  to_date: string;
  refit: "daily" | "once";
  /** The report's `summary` and `products`, JSON. */
  summary: string;
  products: string;
}

/** One change of one company setting (migration 0015); `old` and `new` are JSON texts of the values. */
export interface CompanyEventsTable {
  /** `cev_` + ULID: sorts by time of writing. */
  event_id: string;
  company_id: string;
  at: string;
  /** `operator` (the CLI) or `console:<name>` (the console's operator), as in the slot history. */
  by: string;
  field: string;
  old: string;
  new: string;
}

/** A partner's pin or narrowing of one product's price over dates (DESIGN §11; migration 0018). */
export interface OverridesTable {
  /** `ovr_` + ULID. */
  override_id: string;
  company_id: string;
  product_id: string;
  start_date: string;
  end_date: string;
  /** A pin; null for a narrowing. */
  price: number | null;
  min_price: number | null;
  max_price: number | null;
  note: string | null;
  created_at: string;
  /** The partner that created it. */
  created_by: string;
}

export interface Database {
  partners: PartnersTable;
  key_pairs: KeyPairsTable;
  companies: CompaniesTable;
  partner_companies: PartnerCompaniesTable;
  products: ProductsTable;
  sales: SalesTable;
  promotions: PromotionsTable;
  runs: RunsTable;
  recommendation_days: RecommendationDaysTable;
  batch_outcomes: BatchOutcomesTable;
  idempotency_keys: IdempotencyKeysTable;
  operations: OperationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  backtests: BacktestsTable;
  company_events: CompanyEventsTable;
  overrides: OverridesTable;
}

export type PartnerRow = Selectable<PartnersTable>;
export type KeyPairRow = Selectable<KeyPairsTable>;
export type CompanyRow = Selectable<CompaniesTable>;
export type ProductRow = Selectable<ProductsTable>;
export type NewProductRow = Insertable<ProductsTable>;
export type SalesRow = Selectable<SalesTable>;
export type PromotionRow = Selectable<PromotionsTable>;
export type RunRow = Selectable<RunsTable>;
export type BatchOutcomeRow = Selectable<BatchOutcomesTable>;
export type OperationRow = Selectable<OperationsTable>;
export type SavedBacktestRow = Selectable<BacktestsTable>;
export type CompanyEventRow = Selectable<CompanyEventsTable>;
export type OverrideRow = Selectable<OverridesTable>;
