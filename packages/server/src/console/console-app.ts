import type { AddressInfo } from "node:net";
import { ApiError, adapterServerOptions, toApiError } from "@pricing/http-adapter";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { ServerContext } from "../context.js";
import { translateError } from "../error-translator.js";
import { registerApiRoutes } from "./api-routes.js";
import { registerAuthRoutes } from "./auth-routes.js";
import { createConsoleAuth } from "./console-auth.js";
import type { ConsoleState } from "./console-state.js";
import { createDemandCurveSource } from "./demand-curves.js";
import { html } from "./html.js";
import { renderPage } from "./page-layout.js";
import { registerPageRoutes } from "./page-routes.js";
import { crossSiteRefusal, hostAllowed } from "./request-origin.js";
import { createSessionStore } from "./sessions.js";
import { registerStaticAssets } from "./static-assets.js";

/** Paths served without a session: the login form and the files it loads. */
function isOpen(path: string): boolean {
  return path === "/login" || path.startsWith("/assets/");
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0] ?? "/";
}

/** A header's text bounded for an error message (it is the client's own, but need not be echoed whole). */
function shown(text: string | undefined): string {
  return (text ?? "").slice(0, 100);
}

/** A route of the console: what the tests walk (every page and JSON answer, every mutation). */
export interface ConsoleRoute {
  method: string;
  url: string;
}

export interface ConsoleApp {
  app: FastifyInstance;
  /** Every route registered, in order. */
  routes: readonly ConsoleRoute[];
}

/**
 * The operator console (DESIGN §10) as a Fastify app of its own, over the server's context: its pages, their JSON
 * under `/api/`, the charting library and its own script. Every request must name a host the console answers to
 * (DNS rebinding); every state-changing one must come from its own pages or from a client that is not a browser
 * (cross-site forgery); every one but the login needs a session or the bearer token. Does not listen.
 */
export async function buildConsoleApp(ctx: ServerContext): Promise<ConsoleApp> {
  const config = ctx.config;
  const app = Fastify({
    ...adapterServerOptions(),
    loggerInstance: ctx.logger.child({ listener: "console" }) as FastifyBaseLogger,
    trustProxy: config.trustProxy,
  });
  const routes: ConsoleRoute[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  const hostnames = new Set(config.consoleHostnames.map((h) => h.toLowerCase()));
  const auth = createConsoleAuth(createSessionStore(ctx.clock), config.consoleToken);
  const operators = new WeakMap<FastifyRequest, string>();
  const assets = registerStaticAssets(app);
  const state: ConsoleState = {
    ctx,
    auth,
    assets,
    curves: createDemandCurveSource(ctx),
    operator(request) {
      const operator = operators.get(request);
      if (operator === undefined) throw new ApiError("invalid_token");
      return operator;
    },
    page(reply, page, request) {
      return reply
        .type("text/html; charset=utf-8")
        .send(renderPage(assets, { ...page, operator: operators.get(request) ?? null }));
    },
  };

  app.addHook("onRequest", async (request, reply) => {
    const host = request.headers.host;
    if (!hostAllowed(host, hostnames)) {
      throw new ApiError(
        "cross_origin_refused",
        `This console does not answer to host "${shown(host)}": reach it by IP address or localhost, or list the name in PRICING_CONSOLE_HOSTNAMES.`,
      );
    }
    const refusal = crossSiteRefusal({
      method: request.method,
      host,
      origin: request.headers.origin,
      secFetchSite: request.headers["sec-fetch-site"] as string | undefined,
    });
    if (refusal !== null) {
      throw new ApiError(
        "cross_origin_refused",
        `Refused a cross-site ${request.method}: ${shown(refusal)}.`,
      );
    }
    const path = pathOf(request);
    if (isOpen(path)) return;
    const operator = auth.operatorOf(request);
    if (operator !== null) {
      operators.set(request, operator);
      return;
    }
    if (path.startsWith("/api/")) {
      throw new ApiError(
        "invalid_token",
        "Log in to the console (/login), or send Authorization: Bearer <console token> with X-Operator-Name: <your name>.",
      );
    }
    return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
  });

  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("content-security-policy", CSP);
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "no-referrer");
    reply.header("cross-origin-opener-policy", "same-origin");
    reply.header("cross-origin-resource-policy", "same-origin");
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    return payload;
  });

  const answer = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, { translateError });
    if (apiError.code === "internal_error") {
      request.log.error({ err: apiError.cause ?? apiError }, "console request failed");
    } else {
      request.log.info({ code: apiError.code, status: apiError.statusCode }, "console request refused");
    }
    reply.code(apiError.statusCode).headers(apiError.headers);
    if (apiError.code === "invalid_token") reply.header("www-authenticate", 'Bearer realm="pricing-console"');
    const path = pathOf(request);
    if (path.startsWith("/api/") || path.startsWith("/assets/")) {
      return reply.type("application/json; charset=utf-8").send({
        error: { code: apiError.code, message: apiError.message, request_id: request.id },
      });
    }
    return state.page(
      reply,
      {
        name: "error",
        title: `${apiError.statusCode}`,
        body: html`<h1>${apiError.statusCode} <span class="muted mono">${apiError.code}</span></h1>
          <p class="error-text">${apiError.message}</p><p><a href="/">Companies</a></p>`,
      },
      request,
    );
  };
  app.setErrorHandler((error, request, reply) => answer(error, request, reply));
  app.setNotFoundHandler((request, reply) => answer(new ApiError("not_found"), request, reply));

  registerAuthRoutes(app, state);
  registerApiRoutes(app, state);
  registerPageRoutes(app, state);
  await app.ready();
  return { app, routes };
}

export interface ConsoleListener {
  /** e.g. `http://127.0.0.1:8081` */
  url: string;
  close(): Promise<void>;
}

/** The console on `consoleHost:consolePort` (0 picks a free port), apart from the API's listener. */
export async function startConsole(ctx: ServerContext, port: number): Promise<ConsoleListener> {
  const { app } = await buildConsoleApp(ctx);
  try {
    await app.listen({ host: ctx.config.consoleHost, port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port: bound } = app.server.address() as AddressInfo;
  const host = ctx.config.consoleHost.includes(":") ? `[${ctx.config.consoleHost}]` : ctx.config.consoleHost;
  return { url: `http://${host}:${bound}`, close: () => app.close() };
}
