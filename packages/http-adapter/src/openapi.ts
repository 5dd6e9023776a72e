import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import { DEFAULT_MESSAGES, ERROR_CODES, type ErrorCode } from "./errors.js";
import { WEBHOOK_PAYLOADS } from "./schemas/webhooks.js";

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

interface OperationDoc {
  operationId?: string;
  parameters?: unknown[];
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
}

const HTTP_COMPONENTS = {
  parameters: {
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you " +
        "mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the " +
        "first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: " +
        "true; with another body, 422 idempotency_key_reused; while the first is still running, 409 " +
        "idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with " +
        "Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).",
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
      example: "5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19",
    },
    AcceptEncoding: {
      name: "Accept-Encoding",
      in: "header",
      required: false,
      description:
        "Content codings you decode, with weights (RFC 9110 §12.5.3): gzip and br are served, compressed once " +
        "per run and filter; without the header, or accepting neither, the JSON as it is. HTTP clients send it " +
        "themselves (fetch, Python requests, curl --compressed).",
      schema: { type: "string" },
      example: "br, gzip, deflate",
    },
    IfNoneMatch: {
      name: "If-None-Match",
      in: "header",
      required: false,
      description:
        "ETag(s) of a response you hold, or *: when one matches the current answer (weak comparison), 304 with " +
        "no body.",
      schema: { type: "string" },
      example: '"mB1yQm0c0wKc3QxZ7C8fYd2uJ3i9P4sV"',
    },
  },
  headers: {
    IdempotentReplayed: {
      description: "true when this is the stored first response to the request's Idempotency-Key.",
      schema: { type: "string", enum: ["true"] },
    },
    ETag: {
      description:
        "Strong entity tag of the body; persisted runs never change, so neither does their tag. Send it back in " +
        "If-None-Match. A coded answer (Content-Encoding) has its own tag.",
      schema: { type: "string" },
    },
    ContentEncoding: {
      description:
        "The body's coding (gzip or br) when Accept-Encoding asked for one; absent for JSON as it is. Each coding " +
        "has its own ETag.",
      schema: { type: "string", enum: ["gzip", "br"] },
    },
    Vary: {
      description: "Accept-Encoding: the answer's coding, and so its ETag, depend on that header.",
      schema: { type: "string" },
    },
    RetryAfter: {
      description: "Seconds to wait before retrying.",
      schema: { type: "string", pattern: "^[0-9]+$" },
    },
  },
};

/**
 * Adds the headers the route schemas cannot state: Idempotency-Key on every POST under /v2/ (with
 * Idempotent-Replayed on its successes and Retry-After on its 409), and If-None-Match, ETag and 304 on the
 * operations in `conditional`.
 */
function addHttpSemantics(
  document: OpenApiDocument,
  conditional: ReadonlySet<string>,
  coded: ReadonlySet<string>,
): OpenApiDocument {
  const doc = document as {
    paths?: Record<string, Record<string, OperationDoc>>;
    components?: Record<string, Record<string, unknown>>;
  };
  doc.components ??= {};
  doc.components.parameters = { ...doc.components.parameters, ...HTTP_COMPONENTS.parameters };
  doc.components.headers = { ...doc.components.headers, ...HTTP_COMPONENTS.headers };
  const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      operation.responses ??= {};
      const responses = operation.responses;
      if (method === "post" && path.startsWith("/v2/")) {
        operation.parameters = [...(operation.parameters ?? []), ref("parameters", "IdempotencyKey")];
        for (const [status, response] of Object.entries(responses)) {
          if (status.startsWith("2")) {
            response.headers = {
              ...response.headers,
              "Idempotent-Replayed": ref("headers", "IdempotentReplayed"),
            };
          }
          if (status === "409")
            response.headers = { ...response.headers, "Retry-After": ref("headers", "RetryAfter") };
        }
      }
      if (operation.operationId !== undefined && conditional.has(operation.operationId)) {
        operation.parameters = [...(operation.parameters ?? []), ref("parameters", "IfNoneMatch")];
        const ok = responses["200"];
        if (ok) ok.headers = { ...ok.headers, ETag: ref("headers", "ETag") };
        responses["304"] = {
          description: "Not Modified: If-None-Match matched the current ETag; no body.",
          headers: { ETag: ref("headers", "ETag") },
        };
      }
      if (operation.operationId !== undefined && coded.has(operation.operationId)) {
        operation.parameters = [...(operation.parameters ?? []), ref("parameters", "AcceptEncoding")];
        const vary = { Vary: ref("headers", "Vary") };
        for (const status of ["200", "304"]) {
          const response = responses[status];
          if (response === undefined) continue;
          response.headers = {
            ...response.headers,
            ...(status === "200" ? { "Content-Encoding": ref("headers", "ContentEncoding") } : {}),
            ...vary,
          };
        }
      }
    }
  }
  return document;
}

/**
 * The headers of every 202 (an RFC 7240 `respond-async` answer), which the route-schema transform does not carry
 * over from a route's response declaration, and its link to the operation.
 */
function addAsyncResponseHeaders(document: OpenApiDocument): OpenApiDocument {
  const paths = (
    document as {
      paths?: Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>;
    }
  ).paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const accepted = operation.responses?.["202"];
      if (accepted === undefined) continue;
      accepted.headers = {
        Location: {
          description:
            "URL of the operation, `{base}/v2/operations/{operation_id}`, beginning with the server's configured " +
            "public URL (never the request's Host).",
          schema: { type: "string", format: "uri" },
        },
        "Preference-Applied": {
          description: "`respond-async` (RFC 7240).",
          schema: { type: "string", const: "respond-async" },
        },
      };
      // Where to poll, for clients and tools that follow links (schemathesis's stateful phase reaches the
      // operation through it).
      accepted.links = {
        GetOperation: {
          operationId: "getOperation",
          parameters: { operation_id: "$response.body#/operation_id" },
          description: "The operation's status: poll it until it has succeeded or failed.",
        },
      };
    }
  }
  return document;
}

const WEBHOOK_HEADERS = {
  WebhookId: {
    name: "webhook-id",
    in: "header",
    required: true,
    description:
      "The event's id (`msg_` + ULID): the same on every retry and every endpoint. Deliveries are at least once: " +
      "use it to drop duplicates.",
    schema: { type: "string", pattern: "^msg_[0-9A-HJKMNP-TV-Z]{26}$" },
    example: "msg_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
  },
  WebhookTimestamp: {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description:
      "Unix seconds when this attempt was signed; refuse a message more than 5 minutes off your clock.",
    schema: { type: "string", pattern: "^[0-9]+$" },
    example: "1763863200",
  },
  WebhookSignature: {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, " +
      "keyed by the base64-decoded part of your endpoint's `whsec_` secret (Standard Webhooks). Compare in " +
      "constant time against each; one match is enough.",
    schema: { type: "string" },
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  },
};

/** A zod schema as a JSON Schema (2020-12, OpenAPI 3.1's dialect) for `components.schemas`. */
function componentSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
  return json;
}

/**
 * The OpenAPI 3.1 `webhooks` section: the requests the server sends to a partner's registered endpoints, each
 * with the Standard Webhooks headers and its payload as a component schema.
 */
function addWebhooks(document: OpenApiDocument): OpenApiDocument {
  const doc = document as {
    webhooks?: Record<string, unknown>;
    components?: Record<string, Record<string, unknown>>;
  };
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.parameters = { ...doc.components.parameters, ...WEBHOOK_HEADERS };
  const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
  doc.webhooks = {};
  for (const [type, { component, schema }] of Object.entries(WEBHOOK_PAYLOADS)) {
    doc.components.schemas[component] = componentSchema(schema);
    doc.webhooks[type] = {
      post: {
        operationId: `webhook_${type.replace(".", "_")}`,
        summary: `${type} (sent to your endpoint)`,
        description:
          `${schema.description ?? ""} Sent as a POST to each endpoint the operator registered for you ` +
          "(`pricing webhook add`); only events of companies mapped to you. Answer 2xx within 10 seconds; any " +
          "other answer, a redirect or a timeout is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, " +
          "then the delivery is marked failed.",
        tags: ["webhooks"],
        security: [],
        parameters: [
          ref("parameters", "WebhookId"),
          ref("parameters", "WebhookTimestamp"),
          ref("parameters", "WebhookSignature"),
        ],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref("schemas", component) } },
        },
        responses: {
          "200": { description: "Received (any 2xx counts as delivered)." },
          "400": { description: "Refused (e.g. a bad signature); retried like any other failure." },
        },
      },
    };
  }
  return document;
}

/** Registers @fastify/swagger (before any route, so it sees them all) and the docs page. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // Loaded here, not at module load, so that importing the adapter for its schemas does not load the plugins.
  const { default: swagger } = await import("@fastify/swagger");
  // Operations answering conditional GETs, as their routes' `config.etag` says (seen as the document is built).
  const conditional = new Set<string>();
  // Operations answering in the coding Accept-Encoding asks for, as their routes' `config.contentCoding` says.
  const coded = new Set<string>();
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
        { name: "webhooks", description: "Events the server sends to your registered endpoints." },
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
    transform: (input) => {
      if (input.route.config?.etag === true && typeof input.schema?.operationId === "string") {
        conditional.add(input.schema.operationId);
      }
      if (input.route.config?.contentCoding === true && typeof input.schema?.operationId === "string") {
        coded.add(input.schema.operationId);
      }
      return jsonSchemaTransform(input);
    },
    transformObject: (documentObject) =>
      addWebhooks(
        addHttpSemantics(
          addAsyncResponseHeaders(
            addErrorExamples(pruneUnusedSchemas(jsonSchemaTransformObject(documentObject))),
          ),
          conditional,
          coded,
        ),
      ),
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
