import { ApiError, type PricingService } from "@pricing/http-adapter";

function unavailable(): Promise<never> {
  return Promise.reject(new ApiError("unavailable", "V2 pricing operations are not enabled on this server."));
}

/** Stands in until the pricing services are wired: every V2 operation answers 503 `unavailable`. */
export const unavailablePricingService: PricingService = {
  listRuns: unavailable,
  getRecommendations: unavailable,
  compute: unavailable,
  train: unavailable,
  promote: unavailable,
  getModel: unavailable,
};
