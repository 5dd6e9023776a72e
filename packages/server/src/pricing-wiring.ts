import type { PricingService } from "@pricing/http-adapter";
import { createPricingRuntime } from "./pricing/pricing-runtime.js";
import type { ServerContext } from "./server-context.js";

/**
 * The V2 pricing service the server runs with unless a caller passes its own: the orchestrator over the server
 * context (runs, recommendations, compute, train, promote, model report).
 */
export async function createDefaultPricingService(
  ctx: ServerContext,
  onClose?: (stop: () => void) => void,
): Promise<PricingService> {
  const runtime = createPricingRuntime(ctx);
  onClose?.(() => runtime.close());
  return runtime.service;
}
