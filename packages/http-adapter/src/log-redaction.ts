import type { FastifyRequest } from "fastify";
import { getModelQuerySchema } from "./schemas/model.js";
import { getRecommendationsQuerySchema } from "./schemas/recommendations.js";
import { listRunsQuerySchema } from "./schemas/runs.js";

export const REDACTED = "[redacted]";

/**
 * Query parameters whose values may be logged: those the API itself defines, none of them secret. Every other
 * value is redacted, whatever its name or route, since a client that sends `?secret_key=` or `?access_token=` (or
 * a misspelling of them) has already leaked it once and the log must not be the second place.
 */
const LOGGABLE_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  ...Object.keys(getRecommendationsQuerySchema.shape),
  ...Object.keys(listRunsQuerySchema.shape),
  ...Object.keys(getModelQuerySchema.shape),
]);

function parameterName(part: string): string {
  const raw = part.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return raw;
  }
}

/** The request target with every query value the API does not define replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split("&")
    .map((part) => {
      if (part === "") return part;
      const name = parameterName(part);
      return LOGGABLE_QUERY_PARAMETERS.has(name) ? part : `${encodeURIComponent(name)}=${REDACTED}`;
    });
  return `${url.slice(0, mark)}?${query.join("&")}`;
}

/** Serializers for the host's logger: the request as Fastify logs it, with its URL redacted. */
export const logSerializers = {
  req(request: FastifyRequest) {
    // Any log line's `req` field comes here, not only Fastify's: a worker's plain object must log, not throw.
    const url: unknown = request.url;
    return {
      method: request.method,
      url: typeof url === "string" ? redactUrl(url) : undefined,
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};
