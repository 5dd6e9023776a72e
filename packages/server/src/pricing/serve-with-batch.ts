import { type AppOptions, type RunningServer, startServer } from "../app.js";
import type { Config, PricingSettingsInput } from "../config.js";
import { type BatchScheduler, startBatchScheduler } from "./batch-scheduler.js";
import { createPricingRuntime, type PricingRuntime } from "./pricing-runtime.js";

export interface ServingWithBatch {
  server: RunningServer;
  runtime: PricingRuntime;
  scheduler: BatchScheduler;
  close(): Promise<void>;
}

/**
 * The API server plus the in-process nightly schedule, sharing one pricing runtime (policy cache, training
 * slots). `close` stops the schedule, aborts running trainings (nothing is committed), then closes the server.
 */
export async function startServerWithBatch(
  config: Config,
  options: AppOptions & { settings?: PricingSettingsInput } = {},
): Promise<ServingWithBatch> {
  let runtime: PricingRuntime | undefined;
  const server = await startServer(config, {
    ...options,
    pricing: (ctx) => {
      runtime = createPricingRuntime(ctx, options.settings ? { settings: options.settings } : {});
      return runtime.service;
    },
  });
  if (!runtime) throw new Error("the pricing runtime was not built");
  const shared = runtime;
  const scheduler = startBatchScheduler(server.ctx, shared);
  return {
    server,
    runtime: shared,
    scheduler,
    async close() {
      scheduler.stop();
      shared.close();
      await server.close();
    },
  };
}
