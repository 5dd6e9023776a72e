import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from "fastify";
import fp from "fastify-plugin";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { installBearerAuth } from "./bearer-auth.js";
import { clientErrorHandler } from "./client-errors.js";
import { installConditionalGet } from "./conditional-get.js";
import { type ErrorTranslator, installErrorHandling, replyWithError } from "./error-handler.js";
import { concurrencyCap, partnerLimitOf } from "./expensive-operations.js";
import { type IdempotencyOptions, installIdempotency } from "./idempotency.js";
import { type OpenApiOptions, registerOpenApi, registerOpenApiDocument } from "./openapi.js";
import {
  createStoreHealth,
  installRateLimits,
  type RateLimitsInput,
  rateLimitsSchema,
  type SharedRateLimitStore,
} from "./rate-limits.js";
import { requestLogController } from "./request-log.js";
import { addRouteHook } from "./route-hooks.js";
import { registerAuthToken } from "./routes/auth-token.js";
import { registerComputeRecommendations } from "./routes/compute-recommendations.js";
import { registerGetModel } from "./routes/get-model.js";
import { registerGetModelHistory } from "./routes/get-model-history.js";
import { registerGetOperation } from "./routes/get-operation.js";
import { registerGetRecommendations } from "./routes/get-recommendations.js";
import { registerHealth } from "./routes/health.js";
import { registerListRuns } from "./routes/list-runs.js";
import { registerOverrides } from "./routes/overrides.js";
import { registerPromoteModel } from "./routes/promote-model.js";
import { registerRollbackModel } from "./routes/rollback-model.js";
import type { RouteDeps } from "./routes/route-deps.js";
import { registerTrainModel } from "./routes/train-model.js";
import { installSecurityHeaders } from "./security-headers.js";
import type { AuthService, PricingService, ReadinessCheck } from "./services.js";

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface PricingApiOptions {
  auth: AuthService;
  pricing: PricingService;
  /** Backs GET /readyz; default always ready. */
  readiness?: ReadinessCheck;
  /** Exact origins allowed cross-origin; empty or absent means no CORS headers at all. `*` is refused. */
  corsOrigins?: readonly string[];
  rateLimits?: RateLimitsInput;
  /**
   * Where the per-key, per-address and per-partner counters live: absent, in this process's memory; with a Redis
   * client, shared by every process on it. The in-flight caps of compute and train stay per process either way.
   */
  rateLimitStore?: SharedRateLimitStore;
  openapi?: OpenApiOptions;
  /** Largest JSON body in bytes; default 64 KiB. */
  bodyLimit?: number;
  /**
   * Where `Idempotency-Key`s are kept (a database shared by every replica). Absent: the header is ignored (the
   * adapter's own tests and the OpenAPI rendering need no store).
   */
  idempotency?: IdempotencyOptions;
  /** The host's errors with an API meaning (a busy database: 503 `unavailable`), checked before the 500. */
  translateError?: ErrorTranslator;
  /**
   * The scheme, host, port and path prefix partners reach the API at (`https://api.example.com`), with which every
   * absolute URL the API writes (a 202's `Location`) begins; read per request, as a host learns its listening
   * address once it listens. Never the request's `Host`, which the client chooses. Absent: those URLs are relative.
   */
  publicUrl?: () => string;
}

/**
 * Server options the adapter relies on: a UUID request id (never taken from the client), logged as `request_id`,
 * the 64 KiB body limit, and the error envelope for what fails before routing (a malformed URL, and the Node
 * server's own refusals: headers too large, a request not received in time). Spread them into `Fastify({...})` of
 * a host application.
 */
export function adapterServerOptions(): Pick<
  FastifyServerOptions,
  "genReqId" | "requestIdHeader" | "logController" | "bodyLimit" | "frameworkErrors" | "clientErrorHandler"
> {
  // Fastify is loaded when the host builds its app, not when the adapter is imported (the CLI imports it for its
  // schemas only); it is CommonJS, so this synchronous require is the same module instance the host gets.
  const { LogController } = createRequire(import.meta.url)("fastify") as typeof import("fastify");
  return {
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: requestLogController(LogController),
    bodyLimit: DEFAULT_BODY_LIMIT,
    frameworkErrors: (error, request, reply) => replyWithError(error, request, reply),
    clientErrorHandler,
  };
}

function checkedOrigins(origins: readonly string[] | undefined): string[] {
  const list = (origins ?? []).map((o) => o.trim()).filter((o) => o.length > 0);
  if (list.includes("*"))
    throw new Error("PUBLIC_API_CORS_ORIGINS must list exact origins; '*' is not allowed");
  return list;
}

async function pricingApiPlugin(app: FastifyInstance, options: PricingApiOptions): Promise<void> {
  const limits = rateLimitsSchema.parse(options.rateLimits ?? {});
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const origins = checkedOrigins(options.corsOrigins);

  app.decorateRequest("principal", null);
  app.decorateRequest("abandoned", null);
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  installErrorHandling(app, {
    bodyLimit,
    ...(options.translateError === undefined ? {} : { translateError: options.translateError }),
  });
  installSecurityHeaders(app);

  if (origins.length > 0) {
    const { default: cors } = await import("@fastify/cors");
    await app.register(cors, {
      origin: origins,
      methods: ["GET", "POST"],
      allowedHeaders: ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"],
      exposedHeaders: ["x-request-id", "retry-after", "www-authenticate", "etag", "idempotent-replayed"],
      maxAge: 600,
    });
  }
  const createRateLimitCheck = await installRateLimits(app, options.rateLimitStore);
  await registerOpenApi(app, options.openapi ?? {});

  const storeHealth = createStoreHealth();
  const deps: Omit<RouteDeps, "hidden"> = {
    auth: options.auth,
    pricing: options.pricing,
    bodyLimit,
    limits,
    publicUrl: () => (options.publicUrl?.() ?? "").replace(/\/+$/, ""),
    tokenLimits: {
      perAddress: createRateLimitCheck(limits.tokenPerAddress, (r) => `ip:${r.ip}`, storeHealth),
      perKey: createRateLimitCheck(
        limits.tokenPerKey,
        (r) => {
          const body = r.body as { access_key?: unknown } | undefined;
          return typeof body?.access_key === "string" ? `key:${body.access_key}` : undefined;
        },
        storeHealth,
      ),
    },
  };
  const perPartner = (prefix: string) => (r: FastifyRequest) =>
    r.principal ? `${prefix}:${r.principal.partnerId}` : undefined;
  const partnerLimit = partnerLimitOf({
    data: createRateLimitCheck(limits.dataPerPartner, perPartner("partner"), storeHealth),
    compute: createRateLimitCheck(limits.computePerPartner, perPartner("compute"), storeHealth),
    train: createRateLimitCheck(limits.trainPerPartner, perPartner("train"), storeHealth),
  });

  const capInFlight = concurrencyCap(limits.expensiveConcurrency);

  const v2 = (hidden: boolean) => async (scope: FastifyInstance) => {
    scope.setValidatorCompiler(validatorCompiler);
    scope.setSerializerCompiler(serializerCompiler);
    // Only JSON bodies are accepted, so anything else is a 415 rather than a validation error.
    scope.removeContentTypeParser("text/plain");
    installBearerAuth(scope, options.auth, partnerLimit);
    if (options.idempotency) installIdempotency(scope, options.idempotency);
    addRouteHook(scope, "preHandler", (route) => route.config?.expensive !== undefined, capInFlight);
    installConditionalGet(scope);
    const routeDeps: RouteDeps = { ...deps, hidden };
    registerGetRecommendations(scope, routeDeps);
    registerListRuns(scope, routeDeps);
    registerComputeRecommendations(scope, routeDeps);
    registerTrainModel(scope, routeDeps);
    registerPromoteModel(scope, routeDeps);
    registerGetModel(scope, routeDeps);
    registerGetModelHistory(scope, routeDeps);
    registerRollbackModel(scope, routeDeps);
    registerGetOperation(scope, routeDeps);
    registerOverrides(scope, routeDeps);
  };

  await app.register(
    async (scope) => {
      scope.setValidatorCompiler(validatorCompiler);
      scope.setSerializerCompiler(serializerCompiler);
      scope.removeContentTypeParser("text/plain");
      registerAuthToken(scope, { ...deps, hidden: false });
      await scope.register(v2(false));
    },
    { prefix: "/public/v1" },
  );
  await app.register(v2(true));
  await app.register(async (scope) => {
    scope.setValidatorCompiler(validatorCompiler);
    scope.setSerializerCompiler(serializerCompiler);
    registerHealth(scope, options.readiness ?? (async () => true));
    registerOpenApiDocument(scope);
  });
}

/** The partner API as a Fastify plugin: routes, schemas, OpenAPI, bearer auth, error envelope, CORS, rate limits. */
export const pricingApi = fp(pricingApiPlugin, { fastify: "5.x", name: "pricing-http-adapter" });
