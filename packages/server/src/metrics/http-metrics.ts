import { toApiError } from "@pricing/http-adapter";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { translateError } from "../error-translator.js";
import type { ServerMetrics, TokenExchangeOutcome } from "./server-metrics.js";

/** The adapter's operation id of `POST /auth/token` (stable: the OpenAPI document's). */
const TOKEN_EXCHANGE = "exchangeToken";

/** Label of requests no route matched (404s): the raw URL would be unbounded and may carry secrets. */
const UNMATCHED = "unmatched";

/**
 * Observes every answered request on the public app: duration by route pattern and status, and the outcome of
 * each token exchange (its error code, as the error handler maps it, or `issued`). Register before the routes.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  const errorCodes = new WeakMap<FastifyRequest, TokenExchangeOutcome>();
  app.addHook("onError", async (request, _reply, error) => {
    errorCodes.set(request, toApiError(error, { translateError }).code);
  });
  // Callback style: every answered request runs it, and it has nothing to wait for.
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    metrics.httpRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    const schema = request.routeOptions.schema as { operationId?: string } | undefined;
    if (schema?.operationId === TOKEN_EXCHANGE) {
      metrics.tokenExchange(
        reply.statusCode === 200 ? "issued" : (errorCodes.get(request) ?? "internal_error"),
      );
    }
    done();
  });
}
