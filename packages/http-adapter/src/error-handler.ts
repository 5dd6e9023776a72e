import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { ClientGoneError } from "./client-gone.js";
import { ApiError, codeToStatus, DEFAULT_RETRY_AFTER_SECONDS, toEnvelope } from "./errors.js";
import { methodNotAllowed, trackAllowedMethods } from "./method-not-allowed.js";
import { describeValidation, type ValidationIssue } from "./validation-message.js";

const FASTIFY_CODES: Record<string, ApiError["code"]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_JSON_BODY: "validation_error",
  FST_ERR_CTP_EMPTY_JSON_BODY: "validation_error",
  FST_ERR_BAD_URL: "validation_error",
};

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "The request body is not valid JSON.",
  FST_ERR_CTP_EMPTY_JSON_BODY: "The request body is empty but Content-Type is application/json.",
  // Fastify's own text echoes the URL, which may carry a secret.
  FST_ERR_BAD_URL: "The request URL is malformed: check its percent-encoding.",
};

/**
 * Codes a framework error's own status stands for, looked up through `codeToStatus` so that the status table is
 * not written twice. Each status here belongs to exactly one of them (404 would also be company_not_found's).
 */
const FRAMEWORK_STATUS_CODES: readonly ApiError["code"][] = [
  "not_found",
  "method_not_allowed",
  "request_timeout",
  "payload_too_large",
  "unsupported_media_type",
  "headers_too_large",
  "rate_limited",
  "unavailable",
];

function sizeText(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * The host's errors that have an API meaning the adapter cannot know of (a busy database is a 503): returns the
 * `ApiError` to answer with, or undefined for the usual mapping.
 */
export type ErrorTranslator = (error: unknown) => ApiError | undefined;

export interface ErrorHandlingOptions {
  /** Bytes; a 413 then says what the limit is, else the registry's message. */
  bodyLimit?: number;
  translateError?: ErrorTranslator;
}

/** Maps anything thrown while handling a request to our one error type. */
export function toApiError(error: unknown, options: ErrorHandlingOptions = {}): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ClientGoneError) {
    return new ApiError("unavailable", "The client closed the connection before the answer was sent.", {
      cause: error,
    });
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    return new ApiError("validation_error", describeValidation(error.validationContext, error.validation));
  }
  if (isResponseSerializationError(error)) return new ApiError("internal_error", undefined, { cause: error });
  const translated = options.translateError?.(error);
  if (translated !== undefined) return translated;
  const fastifyError = error as Partial<FastifyError> | null;
  const code = typeof fastifyError?.code === "string" ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (code !== undefined && fastifyError?.code !== undefined) {
    const message =
      code === "payload_too_large" && options.bodyLimit !== undefined
        ? `The request body is larger than ${sizeText(options.bodyLimit)}.`
        : FASTIFY_MESSAGES[fastifyError.code];
    return new ApiError(code, message, { cause: error });
  }
  if (Array.isArray(fastifyError?.validation)) {
    return new ApiError(
      "validation_error",
      describeValidation(fastifyError.validationContext, fastifyError.validation as ValidationIssue[]),
    );
  }
  const status = fastifyError?.statusCode;
  const byStatus = FRAMEWORK_STATUS_CODES.find((c) => codeToStatus(c) === status);
  if (byStatus !== undefined) return new ApiError(byStatus, undefined, { cause: error });
  // Other framework 4xx (bad content-length, bad URL...) are the client's fault; their texts are not ours to echo.
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new ApiError("validation_error", "The request could not be read.", { cause: error });
  }
  return new ApiError("internal_error", undefined, { cause: error });
}

/** Sends the envelope as a ready string so no route's response schema can interfere with it. */
export function sendError(request: FastifyRequest, reply: FastifyReply, apiError: ApiError): FastifyReply {
  // Lower-cased so that a thrower's `Retry-After` and the default below are one header, not two.
  const header: Record<string, string> = Object.fromEntries(
    Object.entries(apiError.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  header["content-type"] = "application/json; charset=utf-8";
  // Set here as well as by the hooks, since a framework error (a malformed URL) is answered before any hook runs.
  header["x-request-id"] = request.id;
  header["x-content-type-options"] = "nosniff";
  const retryAfter = DEFAULT_RETRY_AFTER_SECONDS[apiError.code];
  if (retryAfter !== undefined) header["retry-after"] ??= String(retryAfter);
  if (apiError.code === "invalid_token" || apiError.code === "token_expired") {
    header["www-authenticate"] = `Bearer error="invalid_token"`;
  }
  return reply
    .code(apiError.statusCode)
    .headers(header)
    .send(JSON.stringify(toEnvelope(apiError, request.id)));
}

/** Logs the error at the level its code deserves and answers the envelope. */
export function replyWithError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  options: ErrorHandlingOptions = {},
): FastifyReply {
  const apiError = toApiError(error, options);
  if (error instanceof ClientGoneError) {
    request.log.info({ code: apiError.code }, "request abandoned by its client; its work was cancelled");
  } else if (apiError.code === "internal_error") {
    request.log.error({ err: apiError.cause ?? apiError, code: apiError.code }, "request failed");
  } else if (apiError.statusCode >= 500) {
    request.log.warn({ code: apiError.code, status: apiError.statusCode }, "request refused");
  } else {
    request.log.info({ code: apiError.code, status: apiError.statusCode }, "request rejected");
  }
  return sendError(request, reply, apiError);
}

export function installErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions): void {
  const allowedMethods = trackAllowedMethods(app);
  app.setErrorHandler((error, request, reply) => {
    // A request no route took fails before the not-found handler when Fastify refuses its form first (QUERY
    // without Content-Type): for a known path that is still the wrong method.
    const allow = request.is404 ? allowedMethods(request.url) : undefined;
    if (allow !== undefined) return replyWithError(methodNotAllowed(request.method, allow), request, reply);
    return replyWithError(error, request, reply, options);
  });
  app.setNotFoundHandler((request, reply) => {
    const allow = allowedMethods(request.url);
    if (allow === undefined) return sendError(request, reply, new ApiError("not_found"));
    return replyWithError(methodNotAllowed(request.method, allow), request, reply);
  });
}
