import { adapterServerOptions, logSerializers, type PricingService, pricingApi } from "@pricing/http-adapter";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import pino, { type DestinationStream } from "pino";
import type { Config } from "./config.js";
import { pingDatabase } from "./db/database.js";
import { createDefaultPricingService } from "./pricing-wiring.js";
import { createServerContext, type ServerContext, type ServerContextOptions } from "./server-context.js";

export interface AppOptions extends ServerContextOptions {
  /**
   * Builds the V2 pricing service from the server context; default: `createDefaultPricingService`. A service that
   * holds work of its own (trainings) registers its shutdown with `onClose`: it runs before the server waits for
   * in-flight requests, so a request awaiting that work ends instead of holding the close.
   */
  pricing?: (
    ctx: ServerContext,
    onClose: (stop: () => void) => void,
  ) => PricingService | Promise<PricingService>;
  /** Where JSON log lines go (default stdout); tests capture them here. */
  logStream?: DestinationStream;
}

export interface App {
  app: FastifyInstance;
  ctx: ServerContext;
  /** Closes the HTTP server and the database. */
  close(): Promise<void>;
}

/** Paths pino must never print, should a serializer ever include them. */
const REDACT = ["req.headers.authorization", "req.body", "access_token", "secret_key", "*.secret_key"];

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

/** The composition root: context, logger, Fastify with the adapter plugin. Does not listen. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const ctx = await createServerContext(config, options);
  const logger = pino(
    { level: config.logLevel, serializers: logSerializers, redact: { paths: REDACT, censor: "[redacted]" } },
    // Asynchronous writes: a synchronous stdout that is a slow pipe would stall the event loop on every full pipe.
    options.logStream ?? pino.destination({ dest: 1, sync: false }),
  );
  ctx.logger = logger;
  const app: FastifyInstance = Fastify({
    ...adapterServerOptions(),
    loggerInstance: logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    ...receivingBounds(config),
  });
  app.server.maxConnections = config.maxConnections;
  try {
    const stops: (() => void)[] = [];
    const pricing = await (options.pricing ?? createDefaultPricingService)(ctx, (stop) => stops.push(stop));
    let closing = false;
    app.addHook("preClose", (done) => {
      closing = true;
      for (const stop of stops) stop();
      done();
    });
    // A keep-alive connection whose request was in flight when the close began would otherwise stay open until
    // its idle timeout and hold the close: answer it with `Connection: close`.
    app.addHook("onSend", (_request, reply, payload, done) => {
      if (closing) reply.header("connection", "close");
      done(null, payload);
    });
    await app.register(pricingApi, {
      auth: ctx.auth,
      pricing,
      readiness: () => pingDatabase(ctx.db),
      corsOrigins: config.corsOrigins,
      rateLimits: config.rateLimits,
    });
    await app.ready();
  } catch (error) {
    await app.close();
    await ctx.db.destroy();
    throw error;
  }
  return {
    app,
    ctx,
    async close() {
      await app.close();
      await ctx.db.destroy();
    },
  };
}

export interface RunningServer extends App {
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
}

/** buildApp, then listen on config.host:config.port (0 picks a free port). */
export async function startServer(config: Config, options: AppOptions = {}): Promise<RunningServer> {
  const built = await buildApp(config, options);
  try {
    await built.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await built.close();
    throw error;
  }
  const address = built.app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return { ...built, url: `http://${host}:${port}` };
}
