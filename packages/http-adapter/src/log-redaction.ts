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
  const equals = part.indexOf("=");
  const raw = equals < 0 ? part : part.slice(0, equals);
  // The API's own names need no decoding; only an escaped name does (the common case costs no decode per request).
  if (!raw.includes("%") && !raw.includes("+")) return raw;
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return raw;
  }
}

/**
 * The request target with every query value the API does not define replaced by `[redacted]`; the same string when
 * there is none, as on nearly every request.
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark < 0) return url;
  const parts = url.slice(mark + 1).split("&");
  let redacted = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? "";
    if (part === "") continue;
    const name = parameterName(part);
    if (LOGGABLE_QUERY_PARAMETERS.has(name)) continue;
    parts[i] = `${encodeURIComponent(name)}=${REDACTED}`;
    redacted = true;
  }
  return redacted ? `${url.slice(0, mark)}?${parts.join("&")}` : url;
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
