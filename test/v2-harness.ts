import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ConfigInput,
  createServerContext,
  demoScenario,
  issueCredentials,
  loadConfig,
  overrideConfig,
  type PricingSettingsInput,
  type RunningServer,
  type ServerContext,
  seedCompanyFromMarket,
  startServer,
} from "@pricing/server";

/** Small budgets: the story is about the operations, not the policy's quality (that is the policy benchmark's). */
export const TEST_SETTINGS: PricingSettingsInput = {
  trainSeconds: 1.5,
  trainHorizonDays: 21,
  runDays: 14,
  minHistoryDays: 28,
};

export interface V2Harness {
  server: RunningServer;
  /** The server's context: the one its routes, its trainings and an in-process schedule use. */
  ctx: ServerContext;
  /**
   * Another context over the server's database and clock, as a restarted server or a second process builds
   * (with `settings` on top of the harness's); the caller closes it.
   */
  newContext(settings?: PricingSettingsInput): Promise<ServerContext>;
  dataDir: string;
  url: string;
  /** Sets the injected clock (server, auth and batch all read it). */
  setNow(iso: string): void;
  now(): Date;
  /** A partner mapped to `companies`, with its key pair. */
  partner(companies: string[]): Promise<{ partner_id: string; access_key: string; secret_key: string }>;
  /** A company with a synthetic market's products and history ending the day before the clock's date. */
  seedCompany(
    companyId: string,
    options?: {
      products?: number;
      tightStock?: boolean;
      historyDays?: number;
      timezone?: string;
      seed?: number;
    },
  ): Promise<void>;
  token(keys: { access_key: string; secret_key: string }): Promise<string>;
  get(path: string, token: string): Promise<Response>;
  post(path: string, token: string, body: unknown): Promise<Response>;
  destroy(): Promise<void>;
}

/**
 * The real server on a loopback port, SQLite file and artifact folder in a temp data dir, injectable clock;
 * `serverSettings` adds settings of the server itself (a metrics port); `logs`, given, receives every log line
 * (level `info`), else the server logs nothing.
 */
export async function startV2Harness(
  startIso = "2026-03-10T03:00:00Z",
  settings: PricingSettingsInput = TEST_SETTINGS,
  serverSettings: Omit<ConfigInput, "pricing"> = {},
  logs?: Record<string, unknown>[],
): Promise<V2Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-v2-"));
  let now = Date.parse(startIso);
  const clock = () => new Date(now);
  const config = loadConfig(
    {},
    { ...serverSettings, dataDir, port: 0, logLevel: logs ? "info" : "silent", pricing: settings },
  );
  const logStream = logs && {
    write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>),
  };
  const server = await startServer(config, { clock, ...(logStream ? { logStream } : {}) });
  const ctx = server.ctx;
  const h: V2Harness = {
    server,
    ctx,
    newContext: (more = {}) =>
      createServerContext(overrideConfig(config, { pricing: more }), { clock, db: ctx.db, migrate: false }),
    dataDir,
    url: server.url,
    setNow(iso) {
      now = Date.parse(iso);
    },
    now: clock,
    async partner(companies) {
      const keys = issueCredentials(ctx.pepper);
      const row = await ctx.repositories.partners.create("Test partner", {
        access_key: keys.access_key,
        secret_hash: keys.secret_hash,
        pepper_id: keys.pepper_id,
      });
      for (const c of companies) await ctx.repositories.companies.map(row.partner_id, c);
      return { partner_id: row.partner_id, access_key: keys.access_key, secret_key: keys.secret_key };
    },
    async seedCompany(companyId, options = {}) {
      const timezone = options.timezone ?? "UTC";
      const today = new Intl.DateTimeFormat("en-CA", { timeZone: timezone }).format(clock());
      await seedCompanyFromMarket(ctx, {
        companyId,
        name: `Company ${companyId}`,
        timezone,
        currency: "EUR",
        dir: join(dataDir, "csv"),
        scenario: demoScenario({
          name: companyId,
          today,
          seed: options.seed ?? 7,
          products: options.products ?? 3,
          tightStock: options.tightStock ?? true,
          horizon: 21,
          historyDays: options.historyDays ?? 90,
        }),
      });
    },
    async token(keys) {
      const res = await fetch(`${server.url}/public/v1/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: keys.access_key, secret_key: keys.secret_key }),
      });
      if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    get(path, token) {
      return fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    },
    post(path, token, body) {
      return fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    },
    async destroy() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
