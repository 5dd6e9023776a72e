import type { PlanArtifact, PlanPool } from "@pricing/engine";
import type { AuthService } from "@pricing/http-adapter";
import type { ActiveReport, ActiveSource, PolicyResolver, PolicyStore } from "@pricing/policy-store";
import pino, { type Logger } from "pino";
import { createAuthService } from "./auth/auth-service.js";
import { type KeyRing, keyRing } from "./auth/key-ring.js";
import { loadOrCreateSecrets } from "./auth/secret-file.js";
import { createTokenSigner, type TokenSigner } from "./auth/token-signer.js";
import { type Clock, systemClock } from "./clock.js";
import type { Config } from "./config.js";
import { createDatabase, type Db } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { openPolicyStore } from "./db/open-policy-store.js";
import type { JobQueue } from "./jobs/job-queue.js";
import { createServerMetrics, type ServerMetrics } from "./metrics/server-metrics.js";
import { type BacktestsRepository, createBacktestsRepository } from "./repositories/backtests.js";
import {
  type BatchOutcomesRepository,
  createBatchOutcomesRepository,
} from "./repositories/batch-outcomes.js";
import { type CompanyRepository, createCompanyRepository } from "./repositories/companies.js";
import {
  createIdempotencyKeysRepository,
  type IdempotencyKeysRepository,
} from "./repositories/idempotency-keys.js";
import { createOperationsRepository, type OperationsRepository } from "./repositories/operations.js";
import { createOverridesRepository, type OverridesRepository } from "./repositories/overrides.js";
import { createPartnerRepository, type PartnerRepository } from "./repositories/partners.js";
import { createProductRepository, type ProductRepository } from "./repositories/products.js";
import { createRunsRepository, type RunsRepository } from "./repositories/runs.js";
import { createSalesRepository, type SalesRepository } from "./repositories/sales.js";
import { createWebhooksRepository, type WebhooksRepository } from "./repositories/webhooks.js";
import { createResponseCache, type ResponseCache } from "./services/response-cache.js";
import { settleOrphanedTrainings } from "./training/settle-orphaned-trainings.js";
import { createTrainingSlots, type TrainingSlots } from "./training/training-slots.js";
import { createWebhookEvents, type WebhookEvents } from "./webhooks/webhook-events.js";

export interface Repositories {
  partners: PartnerRepository;
  companies: CompanyRepository;
  products: ProductRepository;
  sales: SalesRepository;
  runs: RunsRepository;
  batchOutcomes: BatchOutcomesRepository;
  idempotencyKeys: IdempotencyKeysRepository;
  operations: OperationsRepository;
  webhooks: WebhooksRepository;
  backtests: BacktestsRepository;
  overrides: OverridesRepository;
}

export interface Policies {
  store: PolicyStore;
  /**
   * The store's active-source rule with the engine's artifact check as loader: checked artifacts (manifest and
   * weights' bytes, never a deserialized policy) are cached by model id, for the planning threads to deserialize.
   */
  resolver: PolicyResolver<PlanArtifact>;
}

/**
 * Everything built once at start-up and handed to routes, services, jobs and CLI commands: the first argument of
 * every operation. One context per process (the server, or one CLI command).
 */
export interface ServerContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** HMAC keys of stored secret-key hashes: the current one hashes new keys, each verifies its own. */
  pepper: KeyRing;
  signer: TokenSigner;
  auth: AuthService;
  repositories: Repositories;
  policies: Policies;
  /**
   * The planning threads (`pricing.planThreads`) every plan runs in, started with the first plan; this thread
   * never runs a policy.
   */
  planning: PlanPool;
  /** One training per company at a time (the `train-company` job's exclusive slot). */
  training: TrainingSlots;
  /**
   * The queue jobs go to (`startJobs`, by the process's role; the API server's default runs them in-process): on
   * PostgreSQL any worker process runs them. Undefined: this process trains in place (every CLI command). Closed
   * with the context.
   */
  jobs?: JobQueue;
  /** Serialized responses of persisted runs. */
  responses: ResponseCache;
  /** This context's Prometheus registry and the hooks that feed it (served by `startServer` on the metrics port). */
  metrics: ServerMetrics;
  /** Webhook events: services report committed changes here; dispatchers deliver them. */
  webhooks: WebhookEvents;
  /**
   * Stops webhook dispatchers, aborts running trainings, ends the planning threads (failing plans still running),
   * drops cached artifacts and destroys the database (unless the caller passed its own `db`). Safe to call twice.
   */
  close(): Promise<void>;
}

export interface ServerContextOptions {
  clock?: Clock;
  /** Run pending migrations first (default true). */
  migrate?: boolean;
  /** PostgreSQL schema (search_path), for tests. */
  pgSchema?: string;
  /** A database owned by the caller (another context's, for a second context over the same data); not closed. */
  db?: Db;
  /** Default: a silent logger (CLI commands print their own output). */
  logger?: Logger;
}

/** The slot whose artifact was passed over: approved when set and not serving, else latest. */
function passedOverModel(report: ActiveReport): string | null {
  if (report.approved !== null && report.source !== "approved") return report.approved.model_id;
  return report.latest?.model_id ?? null;
}

/**
 * The store's resolver with the engine's artifact check as loader: an artifact the engine could not rebuild counts
 * as unreadable (or incompatible, when the engine says it was made by a format it cannot read), like one that fails
 * its hash check, and the next source serves. The check decodes no weight and builds no network: only the planning
 * threads deserialize. Each fallback other than `no_artifact` is logged as one warning when it starts (not on every
 * read while it lasts).
 */
function createPolicyResolver(store: PolicyStore, logger: Logger): PolicyResolver<PlanArtifact> {
  const resolver = store.createResolver<PlanArtifact>({
    // The engine (TensorFlow, ~2 s to import) loads with the first artifact: commands that never price skip it.
    load: async (artifact) => ({
      key: `${artifact.record.model_id}:${artifact.record.weights_sha256}`,
      manifest: (await import("@pricing/engine")).checkPolicyArtifact(artifact),
      weights: artifact.weights,
    }),
  });
  const warned = new Map<string, string>();
  return {
    async resolve(companyId) {
      const resolution = await resolver.resolve(companyId);
      const reason = resolution.report.fallback_reason;
      if (reason === null || reason === "no_artifact") {
        warned.delete(companyId);
        return resolution;
      }
      const modelId = passedOverModel(resolution.report);
      const key = `${reason}:${modelId}`;
      if (warned.get(companyId) !== key) {
        warned.set(companyId, key);
        logger.warn(
          { company_id: companyId, model_id: modelId, fallback_reason: reason },
          "model fallback: the policy store passed over an artifact",
        );
      }
      return resolution;
    },
    close: () => resolver.close(),
  };
}

/**
 * The engine's planning pool, created (with the engine) by the first plan. Plans after `close` reject with the
 * pool's `plan_pool_closed`.
 */
function lazyPlanPool(size: number): PlanPool {
  let pool: PlanPool | undefined;
  let opening: Promise<PlanPool> | undefined;
  let closed = false;
  const open = (): Promise<PlanPool> => {
    opening ??= import("@pricing/engine").then((engine) => {
      pool = engine.createPlanPool({ size });
      if (closed) void pool.close();
      return pool;
    });
    return opening;
  };
  return {
    async plan(job, request) {
      return (await open()).plan(job, request);
    },
    async planPacked(job, request) {
      return (await open()).planPacked(job, request);
    },
    stats: () => pool?.stats() ?? [],
    waiting: () => pool?.waiting() ?? 0,
    async close() {
      closed = true;
      await (await opening)?.close();
    },
  };
}

/** Each company's source as its committed slots name it (approved, else latest, else the rule), artifacts unread. */
async function committedSources(
  store: PolicyStore,
  companies: CompanyRepository,
): Promise<Map<string, ActiveSource>> {
  const sources = new Map<string, ActiveSource>();
  for (const company of await companies.list()) {
    // An unreadable slot record serves the rule (slots_unreadable); the resolver warns about it, not the gauge.
    const slots = await store.getSlots(company.company_id).catch(() => null);
    sources.set(company.company_id, slots?.approved ? "approved" : slots?.latest ? "latest" : "rule");
  }
  return sources;
}

export async function createServerContext(
  config: Config,
  options: ServerContextOptions = {},
): Promise<ServerContext> {
  const clock = options.clock ?? systemClock;
  const db = options.db ?? createDatabase({ ...config, pgSchema: options.pgSchema });
  let closeStore: () => Promise<void> = async () => undefined;
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    const pepper = keyRing("pepper", loadOrCreateSecrets(config.dataDir, "key-pepper", config.keyPepper));
    const signer = createTokenSigner({
      keys: keyRing("kid", loadOrCreateSecrets(config.dataDir, "jwt-secret", config.jwtSecret)),
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      clock,
    });
    const partners = createPartnerRepository(db, clock);
    // Hashes stored before they named their pepper were all made by the one pepper there was: the current one,
    // provided the operator upgrades before adding a new pepper (packages/server/README.md).
    await partners.assignPepperToUnnamedHashes(pepper.current.id);
    const companies = createCompanyRepository(db, clock);
    const opened = await openPolicyStore(config, db, clock);
    const store = opened.store;
    closeStore = opened.close;
    const logger = options.logger ?? pino({ level: "silent" });
    const training = createTrainingSlots({ expectedSeconds: config.pricing.trainSeconds + 5 });
    const metrics = createServerMetrics({
      trainingsRunning: () => training.running(),
      committedSources: () => committedSources(store, companies),
    });
    const policies = { store, resolver: metrics.sources.watch(createPolicyResolver(store, logger)) };
    const planning = lazyPlanPool(config.pricing.planThreads);
    const webhooksRepository = createWebhooksRepository(db);
    const webhooks = createWebhookEvents({ repository: webhooksRepository, clock, logger });
    let closed: Promise<void> | undefined;
    const ctx: ServerContext = {
      config,
      db,
      clock,
      logger,
      pepper,
      signer,
      auth: createAuthService({ partners, companies, signer, peppers: pepper }),
      repositories: {
        partners,
        companies,
        products: createProductRepository(db),
        sales: createSalesRepository(db),
        runs: createRunsRepository(db),
        batchOutcomes: createBatchOutcomesRepository(db),
        idempotencyKeys: createIdempotencyKeysRepository(db),
        operations: createOperationsRepository(db, clock),
        webhooks: webhooksRepository,
        backtests: createBacktestsRepository(db),
        overrides: createOverridesRepository(db),
      },
      policies,
      planning,
      training,
      responses: createResponseCache(),
      metrics,
      webhooks,
      close() {
        closed ??= (async () => {
          await webhooks.close();
          training.abortAll();
          await training.settled();
          await ctx.jobs?.close();
          await planning.close();
          policies.resolver.close();
          await closeStore();
          if (!options.db) await db.destroy();
        })();
        return closed;
      },
    };
    // On PostgreSQL the queue retries a dead worker's job; on SQLite nothing would.
    if (config.databaseUrl === undefined) {
      await settleOrphanedTrainings({ operations: ctx.repositories.operations, store, logger });
    }
    return ctx;
  } catch (error) {
    await closeStore();
    if (!options.db) await db.destroy();
    throw error;
  }
}
