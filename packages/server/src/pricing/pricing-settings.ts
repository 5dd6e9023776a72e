import { join } from "node:path";
import { z } from "zod";
import type { Config } from "../config.js";

/** Settings of the V2 pricing operations, read from the environment next to the server `Config`. */
export const pricingSettingsSchema = z.object({
  /** Cron (UTC) of the nightly batch. */
  batchCron: z.string().min(1).default("0 2 * * *"),
  /** Newest runs kept per company; older runs and their rows are deleted after each new run. */
  runsKeep: z.number().int().min(1).max(100_000).default(60),
  /** Days a run prices, starting at the company's today. */
  runDays: z.number().int().min(1).max(366).default(30),
  /** Selling days a policy is trained for when a product has no season end (or no finite stock). */
  trainHorizonDays: z.number().int().min(1).max(366).default(60),
  /** Wall-clock budget of one training (the engine's `maxSeconds`). */
  trainSeconds: z.number().positive().max(3600).default(60),
  /** Seed of every training, so that a retrain on the same data gives the same policy. */
  trainSeed: z.number().int().default(1),
  /** Fewer distinct history days than this (company-wide) is a 422 `insufficient_history`. */
  minHistoryDays: z.number().int().min(1).default(28),
  /** Artifacts kept per company beyond what the slots and a rollback need (older ones are deleted after a train). */
  artifactsKeep: z.number().int().min(1).max(10_000).default(10),
  /** Artifacts folder (the policy store's root). */
  artifactsDir: z.string().min(1),
});

export type PricingSettings = z.output<typeof pricingSettingsSchema>;
export type PricingSettingsInput = Partial<z.input<typeof pricingSettingsSchema>>;

function numberOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`invalid configuration: ${name} must be a number, got "${value}"`);
  return n;
}

/**
 * `PRICING_BATCH_CRON` (or the server's `PRICING_NIGHTLY_CRON`), `PRICING_RUNS_KEEP`, `PRICING_RUN_DAYS`,
 * `PRICING_TRAIN_HORIZON_DAYS`, `PRICING_TRAIN_SECONDS`, `PRICING_TRAIN_SEED`, `PRICING_MIN_HISTORY_DAYS`,
 * `PRICING_ARTIFACTS_KEEP`, `PRICING_ARTIFACTS_DIR` (default `<data dir>/artifacts`); explicit overrides on top.
 */
export function loadPricingSettings(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
  overrides: PricingSettingsInput = {},
): PricingSettings {
  const fromEnv = {
    batchCron: env.PRICING_BATCH_CRON ?? config.nightlyCron,
    runsKeep: numberOf("PRICING_RUNS_KEEP", env.PRICING_RUNS_KEEP),
    runDays: numberOf("PRICING_RUN_DAYS", env.PRICING_RUN_DAYS),
    trainHorizonDays: numberOf("PRICING_TRAIN_HORIZON_DAYS", env.PRICING_TRAIN_HORIZON_DAYS),
    trainSeconds: numberOf("PRICING_TRAIN_SECONDS", env.PRICING_TRAIN_SECONDS),
    trainSeed: numberOf("PRICING_TRAIN_SEED", env.PRICING_TRAIN_SEED),
    minHistoryDays: numberOf("PRICING_MIN_HISTORY_DAYS", env.PRICING_MIN_HISTORY_DAYS),
    artifactsKeep: numberOf("PRICING_ARTIFACTS_KEEP", env.PRICING_ARTIFACTS_KEEP),
    artifactsDir: env.PRICING_ARTIFACTS_DIR ?? join(config.dataDir, "artifacts"),
  };
  const defined = Object.fromEntries(
    Object.entries({ ...fromEnv, ...overrides }).filter(([, v]) => v !== undefined),
  );
  const parsed = pricingSettingsSchema.safeParse(defined);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `invalid configuration: ${issue?.path.join(".") ?? "pricing"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}
