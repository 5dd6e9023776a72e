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
  type PricingSettings,
  type PricingSettingsInput,
} from "./config.js";
export { createDatabase, type DatabaseOptions, type Db, pingDatabase, sqlitePath } from "./db/database.js";
export { type MigrationReport, migrateToLatest } from "./db/migrate.js";
export type * from "./db/schema.js";
export {
  type DataImportRequest,
  formatIssue,
  type ImportCounts,
  type ImportReport,
  ImportValidationError,
  importCompanyData,
} from "./import/data-import.js";
export { type BatchScheduler, startBatchScheduler } from "./pricing/batch-scheduler.js";
export { companyToday } from "./pricing/company-today.js";
export { DEMO_COMPANIES, type DemoResult, demoCurlLines, seedDemo } from "./pricing/demo-seed.js";
export { demoScenario, marketCsv, type SeededCompany, seedCompanyFromMarket } from "./pricing/market-seed.js";
export {
  type BatchReport,
  type BatchStatus,
  batchStatus,
  type CompanyOutcome,
  runNightlyBatch,
} from "./pricing/nightly-batch.js";
export {
  createPricingRuntime,
  type PricingRuntime,
  type PricingRuntimeOptions,
} from "./pricing/pricing-runtime.js";
export { type ServingWithBatch, startServerWithBatch } from "./pricing/serve-with-batch.js";
export { createDefaultPricingService } from "./pricing-wiring.js";
export { type CompanyRepository, createCompanyRepository } from "./repositories/companies.js";
export { createPartnerRepository, type PartnerRepository } from "./repositories/partners.js";
export { createProductRepository, type ProductRepository } from "./repositories/products.js";
export { createSalesRepository, type SalesRepository } from "./repositories/sales.js";
export { createServerContext, type ServerContext, type ServerContextOptions } from "./server-context.js";
export { unavailablePricingService } from "./unavailable-pricing-service.js";
