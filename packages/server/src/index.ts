export { type App, type AppOptions, buildApp, type RunningServer, startServer } from "./app.js";
export { createAuthService } from "./auth/auth-service.js";
export { hashSecret, type IssuedCredentials, issueCredentials } from "./auth/credentials.js";
export { type KeyRing, keyRing, type RingKey } from "./auth/key-ring.js";
export { loadOrCreateSecrets } from "./auth/secret-file.js";
export { createTokenSigner, TOKEN_LIFETIME_SECONDS, type TokenSigner } from "./auth/token-signer.js";
export { CliError, type CliIo, type CliRuntime } from "./cli/cli-runtime.js";
export { COMMANDS, type RegisterCommands } from "./cli/commands/index.js";
export { createProgram, type RunCliOptions, runCli } from "./cli/program.js";
export { type Clock, systemClock } from "./clock.js";
export {
  type Config,
  type ConfigInput,
  configSchema,
  type LoadConfigOptions,
  loadConfig,
  overrideConfig,
  type PricingSettings,
  type PricingSettingsInput,
} from "./config.js";
export {
  buildConsoleApp,
  type ConsoleApp,
  type ConsoleListener,
  type ConsoleRoute,
  startConsole,
} from "./console/console-app.js";
export {
  createServerContext,
  type Policies,
  type Repositories,
  type ServerContext,
  type ServerContextOptions,
} from "./context.js";
export { createDatabase, type DatabaseOptions, type Db, pingDatabase, sqlitePath } from "./db/database.js";
export { type MigrationReport, migrateToLatest } from "./db/migrate.js";
export type * from "./db/schema.js";
export { COMPLETE_JOURNEY_DIR, COMPLETE_JOURNEY_FILES } from "./demo/complete-journey.js";
export { DEMO_COMPANIES, type DemoResult, demoCurlLines, seedDemo } from "./demo/demo-seed.js";
export { demoScenario, marketCsv, type SeededCompany, seedCompanyFromMarket } from "./demo/market-seed.js";
export {
  type DataImportRequest,
  formatIssue,
  type ImportCounts,
  type ImportReport,
  ImportValidationError,
  importCompanyData,
} from "./import/data-import.js";
export { type BatchSchedule, startBatchSchedule } from "./jobs/batch-schedule.js";
export type { JobQueue } from "./jobs/job-queue.js";
export {
  type BatchReport,
  type BatchStatus,
  batchStatus,
  type CompanyOutcome,
  nightlyRun,
  runNightlyBatch,
} from "./jobs/nightly-batch.js";
export { type JobsRole, startJobs } from "./jobs/start-jobs.js";
export { createLogger } from "./logger.js";
export { createPricingService } from "./pricing-service.js";
export {
  type ProcessRole,
  type RunningWorker,
  type ServingWithBatch,
  startServerWithBatch,
  startWorker,
  type WorkerOptions,
} from "./process-roles.js";
export {
  type BacktestsRepository,
  createBacktestsRepository,
  type SavedBacktest,
} from "./repositories/backtests.js";
export {
  type BatchOutcomesRepository,
  createBatchOutcomesRepository,
} from "./repositories/batch-outcomes.js";
export { type CompanyRepository, createCompanyRepository } from "./repositories/companies.js";
export {
  createIdempotencyKeysRepository,
  type IdempotencyKeysRepository,
} from "./repositories/idempotency-keys.js";
export { createPartnerRepository, type PartnerRepository } from "./repositories/partners.js";
export type { CatalogRow } from "./repositories/products.js";
export { createProductRepository, type ProductRepository } from "./repositories/products.js";
export { createRunsRepository, type RunsRepository } from "./repositories/runs.js";
export { createSalesRepository, type SalesRepository } from "./repositories/sales.js";
export {
  createWebhooksRepository,
  type DeliveryListing,
  type WebhookEndpoint,
  type WebhooksRepository,
} from "./repositories/webhooks.js";
export {
  type CompanySettingsChange,
  type CompanySettingsReport,
  companySettings,
  companySettingsChangeSchema,
  updateCompanySettings,
} from "./services/company-settings.js";
export { companyToday } from "./services/company-today.js";
export { computeRecommendations } from "./services/compute-recommendations.js";
export { getOperation, toOperation } from "./services/get-operation.js";
export { listRuns } from "./services/list-runs.js";
export { modelHistory } from "./services/model-history.js";
export { modelReport } from "./services/model-report.js";
export { createOverrides } from "./services/overrides.js";
export { promoteModel } from "./services/promote-model.js";
export { readRecommendations, readRecommendationsJson } from "./services/read-recommendations.js";
export { rollbackModel } from "./services/rollback-model.js";
export {
  type BacktestOptions,
  type BacktestRequest,
  type BacktestResult,
  runBacktest,
} from "./services/run-backtest.js";
export { type TrainCompanyPayload, trainCompany } from "./training/train-company.js";
export { type TrainModelOptions, trainModel, trainModelAsync } from "./training/train-model.js";
export {
  type StopWebhookDispatcher,
  startWebhookDispatcher,
  type WebhookDispatcherOptions,
} from "./webhooks/dispatcher.js";
export { RETRY_DELAYS_MS, retryDelayMs } from "./webhooks/retry-schedule.js";
export { generateWebhookSecret, signWebhook, WEBHOOK_SECRET_PREFIX } from "./webhooks/signature.js";
export {
  checkWebhookTarget,
  nonPublicReason,
  WebhookTargetError,
} from "./webhooks/target-address.js";
export type { NewWebhookEvent, WebhookEvents } from "./webhooks/webhook-events.js";
