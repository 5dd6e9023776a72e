import type { FastifyInstance } from "fastify";

/**
 * Records the methods of every route registered after it, by path, so that a request for a known path with
 * another method is answered 405 with `Allow` (RFC 9110 §15.5.6) rather than 404. Returns the lookup: the
 * `Allow` value for a path, or undefined for a path no route serves.
 */
export function trackAllowedMethods(app: FastifyInstance): (path: string) => string | undefined {
  const methods = new Map<string, Set<string>>();
  app.addHook("onRoute", (route) => {
    const list = Array.isArray(route.method) ? route.method : [route.method];
    const known = methods.get(route.url) ?? new Set<string>();
    for (const method of list) known.add(String(method).toUpperCase());
    // Fastify answers HEAD for every GET route.
    if (known.has("GET")) known.add("HEAD");
    methods.set(route.url, known);
  });
  return (path) => {
    const known = methods.get(path);
    return known === undefined ? undefined : [...known].sort().join(", ");
  };
}
