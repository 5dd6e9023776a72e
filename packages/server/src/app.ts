import { adapterServerOptions, type PricingService, pricingApi } from "@pricing/http-adapter";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { guardConnections } from "./connection-guard.js";
import type { ConsoleListener } from "./console/console-app.js";
import { createServerContext, type ServerContext, type ServerContextOptions } from "./context.js";
import { pingDatabase } from "./db/database.js";
import { translateError } from "./error-translator.js";
import { createInProcessQueue } from "./jobs/in-process-queue.js";
import { jobsOn } from "./jobs/task-jobs.js";
import { createLogger } from "./logger.js";
import { installHttpMetrics } from "./metrics/http-metrics.js";
import { type MetricsListener, startMetricsListener } from "./metrics/metrics-listener.js";
import { createPricingService } from "./pricing-service.js";
import { openRateLimitStore } from "./rate-limit-redis.js";

export interface AppOptions extends Omit<ServerContextOptions, "logger"> {
  /** Where JSON log lines go (default stdout); tests capture them here. */
  logStream?: DestinationStream;
  /**
   * The V2 operations the routes call; default `createPricingService(ctx)`. Only a test that needs a handler the
   * real operations cannot give (one that holds the event loop on cue) replaces it.
   */
  pricing?: (ctx: ServerContext) => PricingService;
}

export interface App {
  app: FastifyInstance;
  ctx: ServerContext;
  /** Closes the HTTP server, then the context (and its database). */
  close(): Promise<void>;
}

/**
 * Node's bounds on receiving a request: the headers, the whole request, idle keep-alive. They end when the request
 * has arrived, so a long handler (a synchronous training) is never cut. No socket inactivity timeout
 * (`connectionTimeout`), which would. Node checks the first two every `connectionsCheckingInterval` (30 s by
 * default), so the check runs often enough for the bounds to mean what they say.
 */
function receivingBounds(config: Config) {
  const checkEvery = Math.max(10, Math.min(1000, Math.floor(config.headersTimeoutMs / 4)));
  return {
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkEvery,
    },
  };
}

/** `http://host:port` of the API's listener (the port it was given, before it listens). */
function listeningUrl(app: FastifyInstance, config: Config): string {
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${port}`;
}

/** The composition root: logger, context, Fastify with the adapter plugin. Does not listen. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = createLogger(config, options.logStream);
  const ctx = await createServerContext(config, { ...options, logger });
  // Until a process role starts its jobs (`startJobs`), the API's trainings run in this process's queue.
  ctx.jobs ??= jobsOn(createInProcessQueue(ctx));
  const rateLimitStore = await openRateLimitStore(config, logger);
  const app: FastifyInstance = Fastify({
    ...adapterServerOptions(),
    loggerInstance: logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    ...receivingBounds(config),
  });
  app.server.maxConnections = config.maxConnections;
  guardConnections(app.server, {
    silentMs: config.silentConnectionTimeoutMs,
    perAddress: config.maxConnectionsPerAddress,
  });
  try {
    let closing = false;
    app.addHook("preClose", (done) => {
      closing = true;
      // Before the server waits for in-flight requests: a request awaiting a training ends instead of holding it.
      ctx.training.abortAll();
      done();
    });
    // A keep-alive connection whose request was in flight when the close began would otherwise stay open until
    // its idle timeout and hold the close: answer it with `Connection: close`.
    app.addHook("onSend", (_request, reply, payload, done) => {
      if (closing) reply.header("connection", "close");
      done(null, payload);
    });
    installHttpMetrics(app, ctx.metrics);
    await app.register(pricingApi, {
      auth: ctx.auth,
      pricing: (options.pricing ?? createPricingService)(ctx),
      readiness: () => pingDatabase(ctx.db),
      corsOrigins: config.corsOrigins,
      rateLimits: config.rateLimits,
      idempotency: { store: ctx.repositories.idempotencyKeys, clock: ctx.clock },
      rateLimitStore: rateLimitStore.store,
      translateError,
      publicUrl: () => config.publicUrl ?? listeningUrl(app, config),
    });
    await app.ready();
  } catch (error) {
    await app.close();
    await rateLimitStore.close();
    await ctx.close();
    throw error;
  }
  return {
    app,
    ctx,
    async close() {
      await app.close();
      await rateLimitStore.close();
      await ctx.close();
    },
  };
}

export interface RunningServer extends App {
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** The Prometheus endpoint on `metricsPort` (e.g. `http://127.0.0.1:9464/metrics`); null when that is unset. */
  metricsUrl: string | null;
  /** The operator console on `consoleHost:consolePort` (e.g. `http://127.0.0.1:8081`); null when that is unset. */
  consoleUrl: string | null;
}

/**
 * buildApp, then listen on config.host:config.port (0 picks a free port), serve `/metrics` on
 * config.host:config.metricsPort and the operator console on config.consoleHost:config.consolePort when they are
 * set: each on its own listener, never on the public one.
 */
export async function startServer(config: Config, options: AppOptions = {}): Promise<RunningServer> {
  const built = await buildApp(config, options);
  let metrics: MetricsListener | undefined;
  let operatorConsole: ConsoleListener | undefined;
  try {
    await built.app.listen({ host: config.host, port: config.port });
    if (config.metricsPort !== undefined) {
      metrics = await startMetricsListener(built.ctx.metrics.registry, config.host, config.metricsPort);
    }
    if (config.consolePort !== undefined) {
      const { startConsole } = await import("./console/console-app.js");
      operatorConsole = await startConsole(built.ctx, config.consolePort);
    }
  } catch (error) {
    await metrics?.close();
    await built.close();
    throw error;
  }
  return {
    ...built,
    url: listeningUrl(built.app, config),
    metricsUrl: metrics?.url ?? null,
    consoleUrl: operatorConsole?.url ?? null,
    async close() {
      await operatorConsole?.close();
      await metrics?.close();
      await built.close();
    },
  };
}
