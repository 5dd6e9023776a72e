import type { RateLimitCheck, RateLimits } from "../rate-limits.js";
import type { AuthService, PricingService } from "../services.js";

/** What every route file receives from the plugin. */
export interface RouteDeps {
  auth: AuthService;
  pricing: PricingService;
  /** True for the duplicate `/v2` routes at the host root, kept out of the OpenAPI document. */
  hidden: boolean;
  /** Largest accepted JSON body in bytes. */
  bodyLimit: number;
  /** The limits in force, which the expensive operations' descriptions state. */
  limits: RateLimits;
  tokenLimits: { perAddress: RateLimitCheck; perKey: RateLimitCheck };
  /** Where absolute URLs begin (`PricingApiOptions.publicUrl`, no trailing slash); "" for relative URLs. */
  publicUrl: () => string;
}

export const BEARER_SECURITY = [{ bearerAuth: [] }];
