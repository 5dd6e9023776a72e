import type { PricingService } from "@pricing/http-adapter";
import type { ServerContext } from "./server-context.js";
import { unavailablePricingService } from "./unavailable-pricing-service.js";

/**
 * The V2 pricing service the server runs with unless a caller passes its own. This is the one place to wire the
 * real orchestrator in; until then every V2 operation answers 503 `unavailable`.
 */
export async function createDefaultPricingService(_ctx: ServerContext): Promise<PricingService> {
  return unavailablePricingService;
}
