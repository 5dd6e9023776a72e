import type {
  FastifyInstance,
  onSendAsyncHookHandler,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from "fastify";

type RouteHookName = "preHandler" | "onSend";

/**
 * Adds `hook` to each route registered after this call (in `app`'s scope) for which `applies` holds, instead of
 * to every request of the scope: a hook that returns at once on the other routes still costs each of their
 * requests a promise and a turn of Fastify's hook runner, and GET /v2/recommendations paid for three of them
 * (idempotency's two, for POSTs, and the cap of expensive operations). Route-level hooks run after the scope's of
 * the same kind, in the order added here.
 */
export function addRouteHook(
  app: FastifyInstance,
  name: "preHandler",
  applies: (route: RouteOptions) => boolean,
  hook: preHandlerAsyncHookHandler,
): void;
export function addRouteHook(
  app: FastifyInstance,
  name: "preHandler",
  applies: (route: RouteOptions) => boolean,
  hook: preHandlerHookHandler,
): void;
export function addRouteHook(
  app: FastifyInstance,
  name: "onSend",
  applies: (route: RouteOptions) => boolean,
  hook: onSendAsyncHookHandler,
): void;
export function addRouteHook(
  app: FastifyInstance,
  name: "onSend",
  applies: (route: RouteOptions) => boolean,
  hook: onSendHookHandler,
): void;
export function addRouteHook(
  app: FastifyInstance,
  name: RouteHookName,
  applies: (route: RouteOptions) => boolean,
  hook: preHandlerAsyncHookHandler | preHandlerHookHandler | onSendAsyncHookHandler | onSendHookHandler,
): void {
  app.addHook("onRoute", (route) => {
    if (!applies(route)) return;
    const given: unknown = route[name];
    const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
    (route as Record<RouteHookName, unknown>)[name] = [...list, hook];
  });
}
