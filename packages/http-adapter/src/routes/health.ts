import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, errorResponses } from "../errors.js";
import type { ReadinessCheck } from "../services.js";

export const READY_ERROR_CODES = ["unavailable"] as const;

const statusSchema = z.object({ status: z.literal("ok") }).meta({ id: "HealthStatus" });

/**
 * Served at the host root, outside the documented base path, so kept out of the OpenAPI document.
 * GET /healthz (the process answers) and GET /readyz (it can serve: database and stores reachable). */
export function registerHealth(app: FastifyInstance, readiness: ReadinessCheck): void {
  const zapp = app.withTypeProvider<ZodTypeProvider>();
  zapp.route({
    method: "GET",
    url: "/healthz",
    schema: { operationId: "health", summary: "Liveness", hide: true, response: { 200: statusSchema } },
    handler: async () => ({ status: "ok" as const }),
  });
  zapp.route({
    method: "GET",
    url: "/readyz",
    schema: {
      operationId: "ready",
      summary: "Readiness",
      hide: true,
      response: { 200: statusSchema, ...errorResponses(READY_ERROR_CODES) },
    },
    handler: async () => {
      let ready = false;
      try {
        ready = await readiness();
      } catch {
        ready = false;
      }
      if (!ready) throw new ApiError("unavailable", "The service is not ready.");
      return { status: "ok" as const };
    },
  });
}
