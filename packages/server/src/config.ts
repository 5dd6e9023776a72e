import { join, resolve } from "node:path";
import { rateLimitsSchema } from "@pricing/http-adapter";
import { z } from "zod";
import { isLoopbackHost } from "./console/loopback-host.js";

/**
 * One setting, declared once: its schema, the environment variable (and CLI flag) it is read from, and what the
 * Configuration table in docs/configuration.md says about it. `loadConfig`, the CLI flags and `config-docs.test.ts` all read
 * these declarations, so a setting cannot be added without the test asking for its README row.
 */
export interface SettingSpec {
  schema: z.ZodType;
  env: string;
  /** Former names of `env`, still read for one release with a start-up warning that names `env`. */
  deprecatedEnv?: readonly string[];
  /** Commander flags (`--port <port>`) of the option that overrides `env` in the commands that declare it. */
  flag?: string;
  /** The variable's or flag's text to the schema's input; default: the text as it is. */
  fromText?: (text: string) => unknown;
  /** The default as docs/configuration.md states it, where the schema's default is derived or not a plain value. */
  documentedDefault?: string;
  /** Defaults of one command (by its path, e.g. `demo`), under the environment. */
  commandDefaults?: Readonly<Record<string, unknown>>;
  /** One line for docs/configuration.md's table and the flag's `--help`. */
  description: string;
}

function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('must be JSON, e.g. {"tokenPerKey":{"max":30,"windowMs":60000}}');
  }
}

function booleanOrText(text: string): boolean | string {
  return text === "true" ? true : text === "false" ? false : text;
}

const serverSettings = {
  dataDir: {
    schema: z.string().min(1).default("./data"),
    env: "PRICING_DATA_DIR",
    flag: "--data-dir <dir>",
    description:
      "data directory: the SQLite file `pricing.sqlite` (WAL), generated secrets, the artifact folder",
  },
  databaseUrl: {
    schema: z.string().url().optional(),
    env: "PRICING_DATABASE_URL",
    description:
      "`postgres://...` to use PostgreSQL instead of the SQLite file (same migrations and queries); the policy store's artifacts and slots then live in the same database and schema, and `PRICING_JWT_SECRET` and `PRICING_KEY_PEPPER` are required",
  },
  redisUrl: {
    schema: z.string().url().optional(),
    env: "PRICING_REDIS_URL",
    description:
      "`redis://...` to share the per-partner and per-key rate-limit counters between processes; unset: each process counts its own. A Redis that cannot be reached lets requests through (logged), never fails them",
  },
  sqliteBusyTimeoutMs: {
    schema: z.number().int().min(0).max(60_000).default(2_000),
    env: "PRICING_SQLITE_BUSY_TIMEOUT_MS",
    fromText: Number,
    description:
      "milliseconds a SQLite write waits for another process's write lock (an import's last step, a CLI command) before the request answers 503 `unavailable` with `Retry-After`; it waits in asynchronous pauses, so the event loop serves other requests meanwhile",
  },
  host: {
    schema: z.string().min(1).default("127.0.0.1"),
    env: "PRICING_HOST",
    flag: "--host <host>",
    description: "interface the API listens on",
  },
  publicUrl: {
    schema: z
      .url({ protocol: /^https?$/ })
      .refine((url) => !/[?#]/.test(url), "must have no query or fragment")
      .transform((url) => url.replace(/\/+$/, ""))
      .optional(),
    env: "PRICING_PUBLIC_URL",
    documentedDefault: "the listening address (`http://<host>:<port>`)",
    description:
      "where partners reach the API (`https://api.example.com`, with a path prefix if a proxy adds one): every absolute URL the API writes (a 202's `Location`) begins with it, never with the request's `Host`",
  },
  port: {
    schema: z.number().int().min(0).max(65535).default(8080),
    env: "PRICING_PORT",
    flag: "--port <port>",
    fromText: Number,
    description: "port the API listens on; 0 picks a free port",
  },
  metricsPort: {
    schema: z.number().int().min(0).max(65535).optional(),
    env: "PRICING_METRICS_PORT",
    flag: "--metrics-port <port>",
    fromText: Number,
    description:
      "port of the Prometheus `/metrics` listener, on `host`, apart from the API's; unset: no listener; 0 picks a free port",
  },
  consolePort: {
    schema: z.number().int().min(0).max(65535).optional(),
    env: "PRICING_CONSOLE_PORT",
    flag: "--console-port <port>",
    fromText: Number,
    commandDefaults: { demo: 8081 },
    description:
      "port of the operator console (web pages and their `/api/`, DESIGN §10) on `consoleHost`, never on the API's port; unset: no console; 0 picks a free port",
  },
  consoleHost: {
    schema: z.string().min(1).default("127.0.0.1"),
    env: "PRICING_CONSOLE_HOST",
    description:
      "interface the console listens on; beyond loopback the server refuses to start without `consoleToken`, and TLS (a reverse proxy) belongs in front of it",
  },
  consoleToken: {
    schema: z.string().min(32, "must be at least 32 characters").optional(),
    env: "PRICING_CONSOLE_TOKEN",
    description:
      "the operators' token, at least 32 characters: the console's login form (with the operator's name) and `Authorization: Bearer` take it. Unset (loopback only): the login asks only the name, and the Host and Origin checks are what keep other sites out",
  },
  consoleHostnames: {
    schema: z
      .array(
        z.string().regex(/^[A-Za-z0-9.-]+$/, "must be host names without a port, e.g. console.example.com"),
      )
      .default([]),
    env: "PRICING_CONSOLE_HOSTNAMES",
    fromText: list,
    description:
      "comma-separated host names the console is reached by (a proxy's, a DNS name) besides `localhost` and IP addresses; a request naming another host is refused, so a DNS-rebinding page cannot reach it",
  },
  jwtSecret: {
    schema: z.string().optional(),
    env: "PRICING_JWT_SECRET",
    documentedDefault:
      "generated once into `<data dir>/jwt-secret` (one key a line), mode 0600; required with PostgreSQL",
    description:
      "HS256 keys of the bearer tokens, comma-separated, each at least 32 characters: the first signs, all verify (by `kid`); see `packages/server/README.md` to rotate",
  },
  keyPepper: {
    schema: z.string().optional(),
    env: "PRICING_KEY_PEPPER",
    documentedDefault:
      "generated once into `<data dir>/key-pepper` (one key a line), mode 0600; required with PostgreSQL",
    description:
      "HMAC keys of the stored secret-key hashes, comma-separated, each at least 32 characters: the first hashes new keys, each hash names its own",
  },
  jwtIssuer: {
    schema: z.string().min(1).default("pricing-api"),
    env: "PRICING_JWT_ISSUER",
    description: "`iss` of the tokens the server mints and accepts",
  },
  jwtAudience: {
    schema: z.string().min(1).default("pricing-partners"),
    env: "PRICING_JWT_AUDIENCE",
    description: "`aud` of the tokens the server mints and accepts",
  },
  corsOrigins: {
    schema: z
      .array(z.string().min(1))
      .default([])
      .refine((origins) => !origins.includes("*"), "must list exact origins, never '*'"),
    env: "PUBLIC_API_CORS_ORIGINS",
    fromText: list,
    description: "comma-separated exact origins allowed cross-origin; empty turns CORS off; `*` is refused",
  },
  rateLimits: {
    schema: rateLimitsSchema.prefault({}),
    env: "PRICING_RATE_LIMITS",
    fromText: json,
    documentedDefault:
      "token exchanges 30/min per key and 120/min per address; data calls 600/min per partner; computes 60/min and trainings 10/hour per partner, 2 of them in flight per partner and 4 on the server",
    description:
      'JSON, e.g. `{"tokenPerKey":{"max":10,"windowMs":60000}}`; keys `tokenPerKey`, `tokenPerAddress`, `dataPerPartner`, `computePerPartner`, `trainPerPartner` (`{max, windowMs}`) and `expensiveConcurrency` (`{perPartner, total}`); limits left out keep their default (counters are per process unless `redisUrl` is set; the in-flight caps are always per process)',
  },
  headersTimeoutMs: {
    schema: z.number().int().min(1).max(600_000).default(10_000),
    env: "PRICING_HEADERS_TIMEOUT_MS",
    fromText: Number,
    description: "milliseconds a client has to send a request's headers; slower is 408 `request_timeout`",
  },
  requestTimeoutMs: {
    schema: z.number().int().min(1).max(3_600_000).default(30_000),
    env: "PRICING_REQUEST_TIMEOUT_MS",
    fromText: Number,
    description:
      "milliseconds a client has to send a whole request, headers and body; slower is 408 `request_timeout`. Bounds receiving only, never the handler's run time; at least `headersTimeoutMs`",
  },
  keepAliveTimeoutMs: {
    schema: z.number().int().min(1).max(600_000).default(5_000),
    env: "PRICING_KEEP_ALIVE_TIMEOUT_MS",
    fromText: Number,
    description: "milliseconds an idle keep-alive connection stays open between requests",
  },
  maxConnections: {
    schema: z.number().int().min(1).max(1_000_000).default(1024),
    env: "PRICING_MAX_CONNECTIONS",
    fromText: Number,
    description: "open connections the server holds at once; one more is closed as soon as it is accepted",
  },
  maxConnectionsPerAddress: {
    schema: z.number().int().min(1).max(1_000_000).default(128),
    env: "PRICING_MAX_CONNECTIONS_PER_ADDRESS",
    fromText: Number,
    description:
      "open connections one client address may hold, so that one client cannot take every connection (health probes included); one more is closed as soon as it is accepted. Behind a reverse proxy, every connection has the proxy's address: keep the proxy's pool below it",
  },
  silentConnectionTimeoutMs: {
    schema: z.number().int().min(1).max(600_000).default(3_000),
    env: "PRICING_SILENT_CONNECTION_TIMEOUT_MS",
    fromText: Number,
    description:
      "milliseconds a new connection may stay open without sending a byte; then it is closed without an answer (a client that sent part of its headers has `headersTimeoutMs`)",
  },
  trustProxy: {
    schema: z.union([z.boolean(), z.string().min(1)]).default(false),
    env: "PRICING_TRUST_PROXY",
    fromText: booleanOrText,
    description:
      "whom to believe about the client address (per-address limits): `false` (the socket peer), `true`, or comma-separated proxy addresses/CIDRs",
  },
  webhookAllowPrivate: {
    schema: z.boolean().default(false),
    env: "PRICING_WEBHOOK_ALLOW_PRIVATE",
    fromText: booleanOrText,
    description:
      "`true` lets webhook endpoints be on private, loopback, link-local or unique-local addresses (a test receiver, an internal network); otherwise they are refused at `webhook add` and at each delivery",
  },
  logLevel: {
    schema: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    env: "PRICING_LOG_LEVEL",
    // A readable console for a first run: request logs only when asked for.
    commandDefaults: { demo: "warn" },
    description:
      "level of the pino JSON logs (one line per request, with `request_id`; written to stdout in batches of 4 KiB, at most 100 ms after they are logged, the rest at exit): `fatal` .. `trace`, `silent`",
  },
} satisfies Record<string, SettingSpec>;

const pricingSettings = {
  batchCron: {
    schema: z.string().min(1).default("0 2 * * *"),
    env: "PRICING_BATCH_CRON",
    deprecatedEnv: ["PRICING_NIGHTLY_CRON"],
    description: "cron of the nightly batch, in UTC; each company's time zone decides its today",
  },
  runsKeep: {
    schema: z.number().int().min(1).max(100_000).default(60),
    env: "PRICING_RUNS_KEEP",
    fromText: Number,
    description:
      "newest nightly runs kept per company; older nightly runs and their rows are deleted after each new one (today's is never deleted)",
  },
  onDemandRunsKeep: {
    schema: z.number().int().min(1).max(100_000).default(60),
    env: "PRICING_ON_DEMAND_RUNS_KEEP",
    fromText: Number,
    description:
      "newest on-demand runs (computes) kept per company, counted apart from nightly runs so computes never push them out",
  },
  runDays: {
    schema: z.number().int().min(1).max(366).default(30),
    env: "PRICING_RUN_DAYS",
    fromText: Number,
    description: "days a nightly or on-demand run prices, from the company's today",
  },
  trainHorizonDays: {
    schema: z.number().int().min(1).max(366).default(60),
    env: "PRICING_TRAIN_HORIZON_DAYS",
    fromText: Number,
    description: "selling days a policy is trained for when a product has no season end (or no finite stock)",
  },
  trainSeconds: {
    schema: z.number().positive().max(3600).default(60),
    env: "PRICING_TRAIN_SECONDS",
    fromText: Number,
    // The demo trains two companies before it serves: a first start should take seconds.
    commandDefaults: { demo: 3 },
    description: "wall-clock budget of one training (the engine's `maxSeconds`)",
  },
  trainSeed: {
    schema: z.number().int().default(1),
    env: "PRICING_TRAIN_SEED",
    fromText: Number,
    description: "seed of every training, so that a retrain on the same data gives the same policy",
  },
  minHistoryDays: {
    schema: z.number().int().min(1).default(28),
    env: "PRICING_MIN_HISTORY_DAYS",
    fromText: Number,
    description: "fewer distinct days of sales history (company-wide) is 422 `insufficient_history`",
  },
  artifactsKeep: {
    schema: z.number().int().min(1).max(10_000).default(10),
    env: "PRICING_ARTIFACTS_KEEP",
    fromText: Number,
    description: "artifacts kept per company after a train, besides those the slots and a rollback need",
  },
  workers: {
    schema: z.number().int().min(0).max(64).default(1),
    env: "PRICING_WORKERS",
    flag: "--workers <n>",
    fromText: Number,
    description:
      "jobs (trainings, the nightly batch) `pricing serve` runs at once in its embedded worker; 0 on PostgreSQL: an API-only replica that queues jobs for `pricing worker` processes and runs no schedule",
  },
  workerConcurrency: {
    schema: z.number().int().min(1).max(64).default(1),
    env: "PRICING_WORKER_CONCURRENCY",
    flag: "--concurrency <n>",
    fromText: Number,
    description: "jobs a `pricing worker` runs at once (each training also uses a thread)",
  },
  jobSchema: {
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lower-case PostgreSQL identifier")
      .default("pgboss"),
    env: "PRICING_JOB_SCHEMA",
    description: "PostgreSQL schema of the pg-boss job tables (created on first start)",
  },
  jobExpireSeconds: {
    schema: z.number().int().min(1).max(86_399).default(900),
    env: "PRICING_JOB_EXPIRE_SECONDS",
    fromText: Number,
    description:
      "seconds a job may run before it counts as dead and is retried by another worker; keep it above the longest training (`PRICING_TRAIN_SECONDS` plus loading and saving)",
  },
  jobRetryLimit: {
    schema: z.number().int().min(0).max(100).default(3),
    env: "PRICING_JOB_RETRY_LIMIT",
    fromText: Number,
    description: "retries of a failed or expired job before its operation fails",
  },
  jobRetryDelaySeconds: {
    schema: z.number().int().min(0).max(3600).default(5),
    env: "PRICING_JOB_RETRY_DELAY_SECONDS",
    fromText: Number,
    description: "seconds before the first retry of a job; doubled at each further retry",
  },
  jobPollSeconds: {
    schema: z.number().min(0.5).max(60).default(2),
    env: "PRICING_JOB_POLL_SECONDS",
    fromText: Number,
    description: "seconds between a worker's polls of the job queue when it is idle",
  },
  jobMaintenanceSeconds: {
    schema: z.number().int().min(1).max(3600).default(30),
    env: "PRICING_JOB_MAINTENANCE_SECONDS",
    fromText: Number,
    description: "seconds between a worker's sweeps for expired jobs (which then retry)",
  },
  planThreads: {
    schema: z.number().int().min(1).max(64).default(2),
    env: "PRICING_PLAN_THREADS",
    fromText: Number,
    description:
      "worker threads that plan computes and nightly runs (the policy's forward passes, the demand fit) off the event loop; each keeps its own cache of loaded policies. Waiting plans are taken round-robin between partners, so with 2 one partner's large compute cannot hold another's small one",
  },
  computeMaxPrices: {
    schema: z.number().int().min(1).max(10_000_000).default(40_000),
    env: "PRICING_COMPUTE_MAX_PRICES",
    fromText: Number,
    description:
      "largest compute answer, in prices (products x days, each explained price counting twice); a larger compute is refused with 422 `answer_too_large` before it is planned (ask for fewer days: start_date/end_date)",
  },
  artifactsDir: {
    schema: z.string().min(1).optional(),
    env: "PRICING_ARTIFACTS_DIR",
    documentedDefault: "`<data dir>/artifacts`",
    description: "the policy store's folder (with `databaseUrl`, the store lives in the database instead)",
  },
} satisfies Record<string, SettingSpec>;

type ShapeOf<T extends Record<string, SettingSpec>> = { [K in keyof T]: T[K]["schema"] };

function shapeOf<T extends Record<string, SettingSpec>>(settings: T): ShapeOf<T> {
  return Object.fromEntries(Object.entries(settings).map(([key, s]) => [key, s.schema])) as ShapeOf<T>;
}

/** Every setting of the server; `pricing` holds those of the V2 pricing operations (runtime, batch, training). */
export const configSchema = z
  .object({ ...shapeOf(serverSettings), pricing: z.object(shapeOf(pricingSettings)).prefault({}) })
  .refine((config) => config.headersTimeoutMs <= config.requestTimeoutMs, {
    path: ["requestTimeoutMs"],
    message: "must be at least headersTimeoutMs",
  })
  .superRefine((config, context) => {
    if (!config.databaseUrl) return;
    // Secrets generated into one machine's data dir would differ per replica: tokens minted on one would fail on
    // the others, and a key hashed by one would not verify on another.
    const missing = [
      ["jwtSecret", "PRICING_JWT_SECRET"],
      ["keyPepper", "PRICING_KEY_PEPPER"],
    ].filter(([key]) => !config[key as "jwtSecret" | "keyPepper"]?.trim());
    if (missing.length === 0) return;
    context.addIssue({
      code: "custom",
      path: [missing[0]?.[0] ?? "jwtSecret"],
      message: `PostgreSQL (PRICING_DATABASE_URL) needs the same secrets on every process: set ${missing.map(([, env]) => env).join(" and ")}`,
    });
  })
  .refine(
    (config) =>
      config.metricsPort === undefined || config.metricsPort === 0 || config.metricsPort !== config.port,
    {
      path: ["metricsPort"],
      message: "must differ from port: metrics are never served on the public port",
    },
  )
  .refine(
    (config) =>
      config.consolePort === undefined ||
      config.consolePort === 0 ||
      (config.consolePort !== config.port && config.consolePort !== config.metricsPort),
    {
      path: ["consolePort"],
      message: "must differ from port and metricsPort: the console is never served on the public port",
    },
  )
  .refine(
    (config) =>
      config.consolePort === undefined ||
      isLoopbackHost(config.consoleHost) ||
      config.consoleToken !== undefined,
    {
      path: ["consoleToken"],
      message:
        "the console listens beyond loopback (PRICING_CONSOLE_HOST): set PRICING_CONSOLE_TOKEN, or keep it on 127.0.0.1",
    },
  )
  .transform((config) => {
    const dataDir = resolve(config.dataDir);
    const artifactsDir = resolve(config.pricing.artifactsDir ?? join(dataDir, "artifacts"));
    return { ...config, dataDir, pricing: { ...config.pricing, artifactsDir } };
  });

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type PricingSettings = Config["pricing"];
export type PricingSettingsInput = NonNullable<ConfigInput["pricing"]>;

/** Where a setting's value sits in `Config`, dotted: `port`, `pricing.runsKeep`. */
export type SettingPath = keyof typeof serverSettings | `pricing.${keyof typeof pricingSettings}`;

export interface ConfigSetting extends SettingSpec {
  path: SettingPath;
}

/** Every setting, server ones first, in docs/configuration.md's table order. */
export const CONFIG_SETTINGS: readonly ConfigSetting[] = [
  ...Object.entries(serverSettings).map(([key, s]): ConfigSetting => ({ ...s, path: key as SettingPath })),
  ...Object.entries(pricingSettings).map(
    ([key, s]): ConfigSetting => ({ ...s, path: `pricing.${key}` as SettingPath }),
  ),
];

export interface LoadConfigOptions {
  /** Flag texts by long flag (`{"--port": "9090"}`), above the environment, for the settings declaring that flag. */
  flags?: Readonly<Record<string, string | undefined>>;
  /** Path of the command being run (`demo`, `batch run`): the settings' `commandDefaults` for it apply. */
  command?: string;
  /** Receives each deprecation warning; default: a Node `DeprecationWarning` (stderr). */
  warn?: (message: string) => void;
}

function valueAt(source: unknown, path: string): unknown {
  let value = source;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  let node = target;
  for (const key of keys) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[last] = value;
}

/** `--port` of `--port <port>`. */
function longFlag(setting: ConfigSetting): string | undefined {
  return setting.flag?.split(" ")[0];
}

function sourcesOf(setting: ConfigSetting): string {
  return [setting.env, longFlag(setting)].filter((s) => s !== undefined).join(", ");
}

function configError(setting: ConfigSetting | undefined, path: string, message: string): Error {
  return new Error(
    `invalid configuration: ${path || "config"}${setting ? ` (${sourcesOf(setting)})` : ""}: ${message}`,
  );
}

/** An empty variable counts as unset, as `FOO=` in a compose file means "no value". */
function textOf(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** The setting's variable, else its first deprecated name that is set (with a warning naming the replacement). */
function envText(
  setting: ConfigSetting,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): string | undefined {
  const current = textOf(env[setting.env]);
  let text = current;
  for (const old of setting.deprecatedEnv ?? []) {
    const oldText = textOf(env[old]);
    if (oldText === undefined) continue;
    if (current === undefined) {
      warn(`${old} is deprecated and will stop working in the next release: rename it to ${setting.env}`);
      text ??= oldText;
    } else {
      warn(`${old} is deprecated and ignored because ${setting.env} is also set: remove ${old}`);
    }
  }
  return text;
}

function fromText(setting: ConfigSetting, text: string): unknown {
  try {
    return setting.fromText ? setting.fromText(text) : text;
  } catch (error) {
    throw configError(setting, setting.path, (error as Error).message);
  }
}

function parseConfig(inputOf: (setting: ConfigSetting) => unknown): Config {
  const input: Record<string, unknown> = {};
  for (const setting of CONFIG_SETTINGS) {
    const value = inputOf(setting);
    if (value !== undefined) setAt(input, setting.path, value);
  }
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join(".") ?? "";
  const setting = CONFIG_SETTINGS.find((s) => path === s.path || path.startsWith(`${s.path}.`));
  throw configError(setting, path, issue?.message ?? "invalid");
}

/**
 * Reads every setting: a command's own default, under the environment, under the command's flags, under
 * `overrides` (tests, embedders). Throws a readable error naming the setting and its variable.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigInput = {},
  options: LoadConfigOptions = {},
): Config {
  const warn =
    options.warn ?? ((message: string) => process.emitWarning(message, { type: "DeprecationWarning" }));
  return parseConfig((setting) => {
    // Read first, so that a deprecated name warns even where a flag or an override wins.
    const text = envText(setting, env, warn);
    const flag = longFlag(setting);
    const flagText = flag === undefined ? undefined : options.flags?.[flag];
    const override = valueAt(overrides, setting.path);
    if (override !== undefined) return override;
    if (flagText !== undefined) return fromText(setting, flagText);
    if (text !== undefined) return fromText(setting, text);
    return options.command === undefined ? undefined : setting.commandDefaults?.[options.command];
  });
}

/** `config` with `overrides` on top, validated by the same schema (tests shorten the pricing budgets this way). */
export function overrideConfig(config: Config, overrides: ConfigInput): Config {
  return parseConfig((setting) => valueAt(overrides, setting.path) ?? valueAt(config, setting.path));
}
