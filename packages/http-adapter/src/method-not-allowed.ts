import type { FastifyInstance } from "fastify";
import { ApiError } from "./errors.js";

export type AllowedMethods = (path: string) => string | undefined;

/** Each app's lookup, for the connection-level error path, which gets the app but none of its plugin state. */
const lookups = new WeakMap<FastifyInstance, AllowedMethods>();

/** The `Allow` lookup `trackAllowedMethods` installed on `app`, if any. */
export function allowedMethodsOf(app: FastifyInstance): AllowedMethods | undefined {
  return lookups.get(app);
}

/**
 * Records the methods of every route registered after it, by path, so that a request for a known path with
 * another method is answered 405 with `Allow` (RFC 9110 §15.5.6) rather than 404. Returns the lookup: the
 * `Allow` value for a path, or undefined for a path no route serves.
 */
export function trackAllowedMethods(app: FastifyInstance): AllowedMethods {
  const methods = new Map<string, Set<string>>();
  app.addHook("onRoute", (route) => {
    const list = Array.isArray(route.method) ? route.method : [route.method];
    const known = methods.get(route.url) ?? new Set<string>();
    for (const method of list) known.add(String(method).toUpperCase());
    // Fastify answers HEAD for every GET route.
    if (known.has("GET")) known.add("HEAD");
    methods.set(route.url, known);
  });
  // A parametric route (`/v2/operations/:operation_id`) matches any one segment in place of its parameter.
  const patterns = new Map<string, RegExp>();
  const patternOf = (url: string) => {
    let pattern = patterns.get(url);
    if (pattern === undefined) {
      const escaped = url
        .split("/")
        .map((segment) =>
          segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        );
      pattern = new RegExp(`^${escaped.join("/")}$`);
      patterns.set(url, pattern);
    }
    return pattern;
  };
  const lookup: AllowedMethods = (path) => {
    const bare = path.split("?")[0] ?? "";
    let known = methods.get(bare);
    if (known === undefined) {
      for (const [url, list] of methods) {
        if (url.includes(":") && patternOf(url).test(bare)) {
          known = list;
          break;
        }
      }
    }
    return known === undefined ? undefined : [...known].sort().join(", ");
  };
  lookups.set(app, lookup);
  return lookup;
}

/** The 405 of a request for a known path with a method it does not allow. */
export function methodNotAllowed(method: string, allow: string): ApiError {
  return new ApiError("method_not_allowed", `${method} is not allowed here; this path allows ${allow}.`, {
    headers: { Allow: allow },
  });
}
