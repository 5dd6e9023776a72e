import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { issueCredentials } from "../auth/credentials.js";
import { type ConfigInput, loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { demoScenario, seedCompanyFromMarket } from "../demo/market-seed.js";
import { runNightlyBatch } from "../jobs/nightly-batch.js";
import { generateWebhookSecret } from "../webhooks/signature.js";
import { buildConsoleApp, type ConsoleRoute } from "./console-app.js";

export const CONSOLE_TOKEN = "console-test-token-of-at-least-32-characters";
export const COMPANY = "acme";

export interface ConsoleTest {
  ctx: ServerContext;
  /** The console's app (not listening): tests `inject` into it. */
  app: FastifyInstance;
  routes: readonly ConsoleRoute[];
  dataDir: string;
  setNow(iso: string): void;
  /** Every secret the data dir and the database hold: none may appear in anything the console renders. */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * A server context on a fresh SQLite data dir with one company (3 products, 60 days of sales, a first nightly
 * run), a partner with a key pair and a webhook endpoint with its signing secret; and the console's app over it.
 */
export async function openConsoleTest(settings: Omit<ConfigInput, "dataDir"> = {}): Promise<ConsoleTest> {
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-console-"));
  let now = Date.parse("2026-03-10T09:00:00Z");
  const clock = () => new Date(now);
  const config = loadConfig(
    {},
    {
      ...settings,
      dataDir,
      pricing: { trainSeconds: 1, trainHorizonDays: 21, runDays: 14, ...settings.pricing },
    },
  );
  const ctx = await createServerContext(config, { clock });
  await seedCompanyFromMarket(ctx, {
    companyId: COMPANY,
    name: "Acme <b>& Co</b>",
    timezone: "UTC",
    currency: "EUR",
    dir: join(dataDir, "csv"),
    scenario: demoScenario({
      name: COMPANY,
      today: "2026-03-10",
      seed: 3,
      products: 3,
      tightStock: false,
      historyDays: 60,
    }),
  });
  const keys = issueCredentials(ctx.pepper);
  const partner = await ctx.repositories.partners.create("Partner", {
    access_key: keys.access_key,
    secret_hash: keys.secret_hash,
    pepper_id: keys.pepper_id,
  });
  await ctx.repositories.companies.map(partner.partner_id, COMPANY);
  const webhookSecret = generateWebhookSecret();
  await ctx.repositories.webhooks.createEndpoint({
    partnerId: partner.partner_id,
    url: "https://partner.example/hooks",
    events: ["recommendations.updated"],
    secret: webhookSecret,
    createdAt: clock().toISOString(),
  });
  await runNightlyBatch(ctx, { trigger: "cli" });
  const { app, routes } = await buildConsoleApp(ctx);
  const fileSecrets = ["jwt-secret", "key-pepper"].flatMap((file) =>
    readFileSync(join(dataDir, file), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.length > 0),
  );
  return {
    ctx,
    app,
    routes,
    dataDir,
    setNow(iso) {
      now = Date.parse(iso);
    },
    secrets: [
      keys.secret_key,
      keys.secret_hash,
      webhookSecret,
      webhookSecret.slice("whsec_".length),
      ...fileSecrets,
      ...(config.consoleToken === undefined ? [] : [config.consoleToken]),
    ],
    async close() {
      await app.close();
      await ctx.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Headers of a same-origin browser request to the console at `host`. */
export function sameOrigin(host = "127.0.0.1:8081"): Record<string, string> {
  return { host, origin: `http://${host}`, "sec-fetch-site": "same-origin" };
}

/** Logs `operator` in through the form (with the token when given) and returns the session cookie header. */
export async function login(app: FastifyInstance, operator: string, token?: string): Promise<string> {
  const res = await app.inject({
    method: "POST",
    url: "/login",
    headers: { ...sameOrigin(), "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      operator,
      next: "/",
      ...(token === undefined ? {} : { token }),
    }).toString(),
  });
  const cookie = res.headers["set-cookie"];
  if (res.statusCode !== 303 || typeof cookie !== "string") {
    throw new Error(`login failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  return cookie.split(";")[0] ?? "";
}
