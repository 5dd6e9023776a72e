import { resolve } from "node:path";
import { rateLimitsSchema } from "@pricing/http-adapter";
import { z } from "zod";

export const configSchema = z.object({
  /** Holds the SQLite file, generated secrets and (for the engine) artifacts. */
  dataDir: z.string().min(1).default("./data"),
  /** `postgres://...` to use PostgreSQL instead of the embedded SQLite file. */
  databaseUrl: z.string().url().optional(),
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(8080),
  /** HS256 signing secret; generated once into the data dir when absent. */
  jwtSecret: z.string().optional(),
  /** HMAC key for stored secret-key hashes; generated once into the data dir when absent. */
  keyPepper: z.string().optional(),
  jwtIssuer: z.string().min(1).default("pricing-api"),
  jwtAudience: z.string().min(1).default("pricing-partners"),
  /** Exact origins allowed cross-origin; empty means CORS off. */
  corsOrigins: z
    .array(z.string().min(1))
    .default([])
    .refine((list) => !list.includes("*"), "PUBLIC_API_CORS_ORIGINS must list exact origins, never '*'"),
  rateLimits: rateLimitsSchema.default(rateLimitsSchema.parse({})),
  /**
   * Whom to believe about the client address (rate limits per address): false (the socket peer), true, or
   * Fastify's comma-separated list of proxy addresses/CIDRs.
   */
  trustProxy: z.union([z.boolean(), z.string().min(1)]).default(false),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Cron (UTC) of the nightly batch. */
  nightlyCron: z.string().min(1).default("0 2 * * *"),
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

function listOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function jsonOf(name: string, value: string | undefined): unknown {
  if (value === undefined || value.trim() === "") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(
      `invalid configuration: ${name} must be JSON, e.g. {"tokenPerKey":{"max":30,"windowMs":60000}}`,
    );
  }
}

function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Environment first, explicit overrides (CLI flags, tests) on top. Throws a readable error naming the setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigInput = {}): Config {
  const fromEnv = definedOnly({
    dataDir: env.PRICING_DATA_DIR,
    databaseUrl: env.PRICING_DATABASE_URL,
    host: env.PRICING_HOST,
    port: env.PRICING_PORT === undefined ? undefined : Number(env.PRICING_PORT),
    jwtSecret: env.PRICING_JWT_SECRET,
    keyPepper: env.PRICING_KEY_PEPPER,
    jwtIssuer: env.PRICING_JWT_ISSUER,
    jwtAudience: env.PRICING_JWT_AUDIENCE,
    corsOrigins: listOf(env.PUBLIC_API_CORS_ORIGINS),
    rateLimits: jsonOf("PRICING_RATE_LIMITS", env.PRICING_RATE_LIMITS),
    logLevel: env.PRICING_LOG_LEVEL,
    trustProxy:
      env.PRICING_TRUST_PROXY === undefined
        ? undefined
        : ["true", "false"].includes(env.PRICING_TRUST_PROXY)
          ? env.PRICING_TRUST_PROXY === "true"
          : env.PRICING_TRUST_PROXY,
    nightlyCron: env.PRICING_NIGHTLY_CRON,
  });
  const parsed = configSchema.safeParse({ ...fromEnv, ...definedOnly(overrides) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `invalid configuration: ${issue?.path.join(".") || "config"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return { ...parsed.data, dataDir: resolve(parsed.data.dataDir) };
}
