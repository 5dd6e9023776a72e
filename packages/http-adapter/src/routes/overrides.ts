import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { requestContext } from "../request-context.js";
import {
  createOverridesBodySchema,
  createOverridesQuerySchema,
  createOverridesResponseSchema,
  deleteOverrideParamsSchema,
  deleteOverrideQuerySchema,
  listOverridesQuerySchema,
  listOverridesResponseSchema,
  MAX_OVERRIDES_PER_REQUEST,
} from "../schemas/overrides.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type {
  CreateOverridesQuery,
  CreateOverridesRequest,
  CreateOverridesResponse,
  DeleteOverrideInput,
  ListOverridesQuery,
  ListOverridesResponse,
  Override,
  OverrideItem,
} from "../schemas/overrides.js";

export const CREATE_OVERRIDES_ERROR_CODES = [
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
  "override_overlap",
  "override_outside_guardrails",
  "override_not_printable",
] as const;

export const DELETE_OVERRIDE_ERROR_CODES = [...DATA_ROUTE_ERROR_CODES, "override_not_found"] as const;

/** `POST`, `GET /v2/overrides` and `DELETE /v2/overrides/{override_id}` (DESIGN §11). */
export function registerOverrides(app: FastifyInstance, deps: RouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.route({
    method: "POST",
    url: "/v2/overrides",
    bodyLimit: deps.bodyLimit,
    schema: {
      operationId: "createOverrides",
      summary: "Pin or narrow products' prices over dates",
      description:
        "One override, or `{company_id, overrides: [...]}` with up to " +
        `${MAX_OVERRIDES_PER_REQUEST} (all or nothing). A pin (price) prices its dates as it is (items show ` +
        "source override and its override_id; it wins over the max daily change, and the exploration cap and " +
        "the jump guard never move it); a narrowing (min_price / max_price) keeps the model's source and shows " +
        "binding override where it moved the price. Dates from the company's today on (400 before it); an " +
        "override overlapping another of the same product is a 409 override_overlap; a pin must be printable in " +
        "the product's currency and endings (422 override_not_printable) and inside its guardrails (422 " +
        "override_outside_guardrails). Overrides apply to runs computed after them; recompute=true also " +
        "persists a fresh on-demand run (and sends recommendations.updated).",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: createOverridesQuerySchema,
      body: createOverridesBodySchema,
      response: { 200: createOverridesResponseSchema, ...errorResponses(CREATE_OVERRIDES_ERROR_CODES) },
    },
    handler: async (request) =>
      deps.pricing.createOverrides(request.body, request.query, requestContext(request)),
  });
  typed.route({
    method: "GET",
    url: "/v2/overrides",
    schema: {
      operationId: "listOverrides",
      summary: "List a company's overrides",
      description: "By product, then start date; limit/offset page them.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: listOverridesQuerySchema,
      response: { 200: listOverridesResponseSchema, ...errorResponses(DATA_ROUTE_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.listOverrides(request.query, requestContext(request)),
  });
  typed.route({
    method: "DELETE",
    url: "/v2/overrides/:override_id",
    schema: {
      operationId: "deleteOverride",
      summary: "Remove an override",
      description:
        "Runs computed after it no longer apply it (persisted runs never change). An unknown id, one already " +
        "removed and another partner's are the same 404 override_not_found.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      params: deleteOverrideParamsSchema,
      querystring: deleteOverrideQuerySchema,
      response: {
        204: z.null().describe("Removed; no body."),
        ...errorResponses(DELETE_OVERRIDE_ERROR_CODES),
      },
    },
    handler: async (request, reply) => {
      await deps.pricing.deleteOverride({ ...request.params, ...request.query }, requestContext(request));
      return reply.code(204).send(null);
    },
  });
}
