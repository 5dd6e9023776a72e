import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { issueCredentials } from "../auth/credentials.js";
import type { ServerContext } from "../context.js";
import { importCompanyData } from "../import/data-import.js";
import { type BatchReport, runNightlyBatch } from "../jobs/nightly-batch.js";
import { companyToday } from "../services/company-today.js";
import { trainModel } from "../training/train-model.js";
import { COMPLETE_JOURNEY_FILES } from "./complete-journey.js";
import { demoScenario, seedCompanyFromMarket } from "./market-seed.js";

const DEMO_FILE = "demo.json";

const demoStateSchema = z.object({ partner_id: z.string(), companies: z.array(z.string()) });

export interface DemoCompanySpec {
  companyId: string;
  name: string;
  timezone: string;
  seed: number;
  products: number;
  tightStock: boolean;
}

/** Two companies from synthetic markets: one with unlimited stock, one selling tight stock by a season end. */
export const DEMO_COMPANIES: readonly DemoCompanySpec[] = [
  {
    companyId: "demo-grocer",
    name: "Demo Grocer",
    timezone: "UTC",
    seed: 101,
    products: 6,
    tightStock: false,
  },
  {
    companyId: "demo-fashion",
    name: "Demo Fashion (tight stock)",
    timezone: "Europe/Berlin",
    seed: 202,
    products: 4,
    tightStock: true,
  },
];

/**
 * The real-sales company: the committed Complete Journey fixture (30 grocery products, 2017), imported as it is.
 * Not trained, to keep the demo fast: the online learner prices it from its history, and `pricing backtest` scores
 * the model on it.
 */
export const REAL_SALES_COMPANY = {
  companyId: "complete-journey",
  name: "Complete Journey (84.51°, real sales of 2017)",
  timezone: "America/New_York",
  currency: "USD",
} as const;

export interface DemoResult {
  /** True when this call created the demo data (false: it existed and the keys were rotated). */
  created: boolean;
  partner_id: string;
  access_key: string;
  secret_key: string;
  companies: string[];
  batch: BatchReport;
}

/**
 * Seeds the demo data if the data dir has none: a partner, two companies imported from synthetic markets with a
 * trained and approved policy each, the real-sales company (`REAL_SALES_COMPANY`), and the first nightly run. On a later start it issues the demo partner a
 * fresh key pair (the secret is never stored, so it cannot be shown again) and runs the batch, which adds a
 * run only on a new day.
 */
export async function seedDemo(
  ctx: ServerContext,
  log: (line: string) => void = () => undefined,
): Promise<DemoResult> {
  const file = join(ctx.config.dataDir, DEMO_FILE);
  const keys = issueCredentials(ctx.pepper);
  if (existsSync(file)) {
    const state = demoStateSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    await ctx.repositories.partners.rotateKeys(state.partner_id, {
      access_key: keys.access_key,
      secret_hash: keys.secret_hash,
      pepper_id: keys.pepper_id,
    });
    const batch = await runNightlyBatch(ctx, { trigger: "cli" });
    return { created: false, partner_id: state.partner_id, ...pick(keys), companies: state.companies, batch };
  }
  const partner = await ctx.repositories.partners.create("Demo partner", {
    access_key: keys.access_key,
    secret_hash: keys.secret_hash,
    pepper_id: keys.pepper_id,
  });
  for (const spec of DEMO_COMPANIES) {
    const today = companyToday(ctx.clock(), spec.timezone);
    log(`seeding ${spec.companyId}: ${spec.products} products, 180 days of history up to ${today}`);
    await seedCompanyFromMarket(ctx, {
      companyId: spec.companyId,
      name: spec.name,
      timezone: spec.timezone,
      currency: "EUR",
      dir: join(ctx.config.dataDir, "demo-csv"),
      scenario: demoScenario({
        name: spec.companyId,
        today,
        seed: spec.seed,
        products: spec.products,
        tightStock: spec.tightStock,
      }),
    });
    await ctx.repositories.companies.map(partner.partner_id, spec.companyId);
    log(`training ${spec.companyId} (budget ${ctx.config.pricing.trainSeconds}s)`);
    const trained = await trainModel(ctx, { company_id: spec.companyId, auto_approve: true });
    log(`  ${trained.model_id} approved`);
  }
  const real = REAL_SALES_COMPANY;
  log(`importing ${real.companyId}: ${real.name}`);
  await ctx.repositories.companies.create({
    company_id: real.companyId,
    name: real.name,
    timezone: real.timezone,
    currency: real.currency,
  });
  await importCompanyData(ctx.db, ctx.clock, {
    companyId: real.companyId,
    productsFile: COMPLETE_JOURNEY_FILES.products,
    salesFile: COMPLETE_JOURNEY_FILES.sales,
    promotionsFile: COMPLETE_JOURNEY_FILES.promotions,
  });
  await ctx.repositories.companies.map(partner.partner_id, real.companyId);
  const batch = await runNightlyBatch(ctx, { trigger: "cli" });
  const companies = [...DEMO_COMPANIES.map((c) => c.companyId), real.companyId];
  // Written last: a demo interrupted before this point is seeded again from scratch in a fresh data dir.
  writeFileSync(file, `${JSON.stringify({ partner_id: partner.partner_id, companies }, null, 2)}\n`);
  return { created: true, partner_id: partner.partner_id, ...pick(keys), companies, batch };
}

function pick(keys: { access_key: string; secret_key: string }) {
  return { access_key: keys.access_key, secret_key: keys.secret_key };
}

/** Copy-paste curl lines for every operation (POSIX shell; `node` extracts the token, so no jq is needed). */
export function demoCurlLines(
  baseUrl: string,
  keys: { access_key: string; secret_key: string },
  companyId: string,
) {
  const api = `${baseUrl}/public/v1`;
  const auth = `-H "authorization: Bearer $TOKEN"`;
  const json = `-H 'content-type: application/json'`;
  return [
    `TOKEN=$(curl -s -X POST ${api}/auth/token ${json} -d '{"access_key":"${keys.access_key}","secret_key":"${keys.secret_key}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `curl -s "${api}/v2/recommendations?company_id=${companyId}&runs_ago=0" ${auth}`,
    `curl -s "${api}/v2/runs?company_id=${companyId}" ${auth}`,
    `curl -s -X POST ${api}/v2/recommendations/compute ${auth} ${json} -d '{"company_id":"${companyId}","dry_run":true}'`,
    `curl -s -X POST ${api}/v2/model/train ${auth} ${json} -d '{"company_id":"${companyId}","auto_approve":false}'`,
    `curl -s "${api}/v2/model?company_id=${companyId}" ${auth}`,
    `curl -s -X POST ${api}/v2/model/promote ${auth} ${json} -d '{"company_id":"${companyId}","model_id":"<latest model_id from GET /v2/model>"}'`,
  ];
}
