import { ApiError } from "./errors.js";
import { adapterServerOptions, pricingApi } from "./plugin.js";
import type { AuthService, PricingService } from "./services.js";

const refuse = (): Promise<never> => Promise.reject(new ApiError("unavailable"));

/**
 * The OpenAPI 3.1 document exactly as the server serves it, built without a database or a socket (for client
 * generation and linting).
 */
export async function renderOpenApiDocument(
  options: { serverUrl?: string } = {},
): Promise<Record<string, unknown>> {
  const auth: AuthService = { exchangeToken: refuse, verifyToken: refuse, isCompanyAccessible: refuse };
  const pricing: PricingService = {
    listRuns: refuse,
    getRecommendations: refuse,
    compute: refuse,
    train: refuse,
    trainAsync: refuse,
    getOperation: refuse,
    promote: refuse,
    getModel: refuse,
    getModelHistory: refuse,
    rollback: refuse,
    createOverrides: refuse,
    listOverrides: refuse,
    deleteOverride: refuse,
  };
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ ...adapterServerOptions(), logger: false });
  try {
    await app.register(pricingApi, {
      auth,
      pricing,
      openapi: { docs: false, ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}) },
    });
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
