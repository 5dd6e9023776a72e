import type { Logger } from "pino";
import { createAuthService } from "./auth/auth-service.js";
import { type KeyRing, keyRing } from "./auth/key-ring.js";
import { loadOrCreateSecrets } from "./auth/secret-file.js";
import { createTokenSigner, type TokenSigner } from "./auth/token-signer.js";
import { type Clock, systemClock } from "./clock.js";
import type { Config } from "./config.js";
import { createDatabase, type Db } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { type CompanyRepository, createCompanyRepository } from "./repositories/companies.js";
import { createPartnerRepository, type PartnerRepository } from "./repositories/partners.js";
import { createProductRepository, type ProductRepository } from "./repositories/products.js";
import { createSalesRepository, type SalesRepository } from "./repositories/sales.js";

/** Everything built once at start-up and handed to services, routes and CLI commands. */
export interface ServerContext {
  config: Config;
  db: Db;
  clock: Clock;
  /** HMAC keys of stored secret-key hashes: the current one hashes new keys, each verifies its own. */
  pepper: KeyRing;
  signer: TokenSigner;
  partners: PartnerRepository;
  companies: CompanyRepository;
  products: ProductRepository;
  sales: SalesRepository;
  auth: ReturnType<typeof createAuthService>;
  logger?: Logger;
}

export interface ServerContextOptions {
  clock?: Clock;
  /** Run pending migrations first (default true). */
  migrate?: boolean;
  /** PostgreSQL schema (search_path), for tests. */
  pgSchema?: string;
  db?: Db;
}

export async function createServerContext(
  config: Config,
  options: ServerContextOptions = {},
): Promise<ServerContext> {
  const clock = options.clock ?? systemClock;
  const db = options.db ?? createDatabase({ ...config, pgSchema: options.pgSchema });
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
    return {
      config,
      db,
      clock,
      pepper,
      signer,
      partners,
      companies,
      products: createProductRepository(db),
      sales: createSalesRepository(db),
      auth: createAuthService({ partners, companies, signer, peppers: pepper }),
    };
  } catch (error) {
    if (!options.db) await db.destroy();
    throw error;
  }
}
