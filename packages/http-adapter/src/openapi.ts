import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { DEFAULT_MESSAGES, ERROR_CODES, type ErrorCode } from "./errors.js";

export interface OpenApiOptions {
  /** Base URL partners call; the document's paths are relative to it. Default `/public/v1`. */
  serverUrl?: string;
  /** Serve the human docs page at `/public/v1/docs`. Default true. */
  docs?: boolean;
}

export const API_VERSION = "1.0.0";

type OpenApiDocument = ReturnType<typeof jsonSchemaTransformObject>;

/**
 * Drops component schemas no operation reaches: zod registers input and output variants of every named shape and
 * shapes of routes hidden from the document, which would otherwise show up as unused components.
 */
function pruneUnusedSchemas(document: OpenApiDocument): OpenApiDocument {
  const doc = document as { paths?: unknown; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const refsIn = (value: unknown) =>
    [...JSON.stringify(value ?? null).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] ?? "");
  const used = new Set<string>();
  const queue = refsIn(doc.paths);
  while (queue.length > 0) {
    const name = queue.pop() ?? "";
    if (used.has(name)) continue;
    used.add(name);
    queue.push(...refsIn(schemas[name]));
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return document;
}

const EXAMPLE_REQUEST_ID = "3f1c8a52-7d0e-4b8e-9a55-0c2f4b8f6e21";

interface ResponseDoc {
  description?: string;
  content?: Record<string, { examples?: unknown }>;
}

/**
 * Gives every error response one named example per code it can carry. The codes come from the description that
 * `errorResponses` writes ("Error envelope with code a or b."), since media-type examples do not survive the
 * route-schema transform.
 */
function addErrorExamples(document: OpenApiDocument): OpenApiDocument {
  const paths = (
    document as { paths?: Record<string, Record<string, { responses?: Record<string, ResponseDoc> }>> }
  ).paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        const listed = /^Error envelope with code (.+)\.$/.exec(response.description ?? "")?.[1];
        const media = response.content?.["application/json"];
        if (listed === undefined || media === undefined) continue;
        const codes = listed
          .split(" or ")
          .filter((c): c is ErrorCode => (ERROR_CODES as readonly string[]).includes(c));
        media.examples = Object.fromEntries(
          codes.map((code) => [
            code,
            {
              summary: code,
              value: { error: { code, message: DEFAULT_MESSAGES[code], request_id: EXAMPLE_REQUEST_ID } },
            },
          ]),
        );
      }
    }
  }
  return document;
}

/** Registers @fastify/swagger (before any route, so it sees them all) and the docs page. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // Loaded here, not at module load, so that importing the adapter for its schemas does not load the plugins.
  const { default: swagger } = await import("@fastify/swagger");
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Price-Recommendation Partner API",
        version: API_VERSION,
        description:
          "Partner-facing REST API for price recommendations backed by an RL pricing policy. Exchange your key " +
          "pair at POST /auth/token, then send `Authorization: Bearer <token>` on every other call. The /v2 " +
          "operations are also served at the host root. Every 4xx and 5xx is the ErrorEnvelope; a known path " +
          "called with another method answers 405 `method_not_allowed` with an `Allow` header listing its " +
          "methods, and a database busy with another writer answers 503 `unavailable` with `Retry-After`.",
        license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      },
      servers: [{ url: options.serverUrl ?? "/public/v1", description: "Partner API base URL" }],
      tags: [
        { name: "auth", description: "Key exchange for bearer tokens." },
        { name: "v2", description: "RL pricing operations." },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "JWT",
            description: "Token from POST /auth/token, valid 900 seconds.",
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) =>
      addErrorExamples(pruneUnusedSchemas(jsonSchemaTransformObject(documentObject))),
  });
  if (options.docs !== false) {
    const { default: swaggerUi } = await import("@fastify/swagger-ui");
    await app.register(swaggerUi, { routePrefix: "/public/v1/docs", staticCSP: true });
  }
}

/** Registers GET /public/v1/openapi.json. */
export function registerOpenApiDocument(app: FastifyInstance): void {
  app.get("/public/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
