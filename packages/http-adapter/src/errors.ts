import { z } from "zod";

/** Every error code the API can answer with (DESIGN.md §2). The HTTP status is decided in `codeToStatus` only. */
export const ERROR_CODES = [
  "validation_error",
  "invalid_credentials",
  "invalid_token",
  "token_expired",
  "company_not_found",
  "no_run_at_offset",
  "not_found",
  "operation_not_found",
  "override_not_found",
  "method_not_allowed",
  "request_timeout",
  "model_id_stale",
  "training_in_progress",
  "slots_unreadable",
  "idempotency_key_in_progress",
  "approved_model_stale",
  "override_overlap",
  "payload_too_large",
  "unsupported_media_type",
  "insufficient_history",
  "idempotency_key_reused",
  "rollback_target_invalid",
  "override_outside_guardrails",
  "override_not_printable",
  "answer_too_large",
  "headers_too_large",
  "rate_limited",
  "internal_error",
  "unavailable",
] as const;

/**
 * Codes only the operator console answers with (on its own port, never on the partner API, so absent from the
 * OpenAPI document); their status is decided in `codeToStatus` with every other code.
 */
export const CONSOLE_ERROR_CODES = ["cross_origin_refused"] as const;

/** The codes the partner API answers with (its OpenAPI document lists exactly these). */
export type PartnerErrorCode = (typeof ERROR_CODES)[number];

export type ErrorCode = PartnerErrorCode | (typeof CONSOLE_ERROR_CODES)[number];

export const errorCodeSchema = z.enum(ERROR_CODES);

export function codeToStatus(code: ErrorCode): number {
  switch (code) {
    case "validation_error":
      return 400;
    case "invalid_credentials":
    case "invalid_token":
    case "token_expired":
      return 401;
    case "company_not_found":
    case "no_run_at_offset":
    case "not_found":
    case "operation_not_found":
    case "override_not_found":
      return 404;
    case "cross_origin_refused":
      return 403;
    case "method_not_allowed":
      return 405;
    case "request_timeout":
      return 408;
    case "model_id_stale":
    case "training_in_progress":
    case "slots_unreadable":
    case "idempotency_key_in_progress":
    case "approved_model_stale":
    case "override_overlap":
      return 409;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "insufficient_history":
    case "idempotency_key_reused":
    case "rollback_target_invalid":
    case "override_outside_guardrails":
    case "override_not_printable":
    case "answer_too_large":
      return 422;
    case "headers_too_large":
      return 431;
    case "rate_limited":
      return 429;
    case "internal_error":
      return 500;
    case "unavailable":
      return 503;
  }
}

/** Default messages. Fixed texts where the message must not differ between cases (credentials, company lookup). */
export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  validation_error: "The request is invalid.",
  invalid_credentials: "The access key or secret key is invalid.",
  invalid_token: "The bearer token is missing, malformed or invalid.",
  token_expired: "The bearer token has expired; exchange your keys for a new token.",
  company_not_found: "Company not found.",
  no_run_at_offset: "No persisted run exists at this runs_ago offset.",
  not_found: "Route not found.",
  operation_not_found: "Operation not found.",
  override_not_found: "Override not found.",
  override_overlap: "The override overlaps another override of the same product; remove that one first.",
  override_outside_guardrails:
    "The override's price, min_price or max_price lies outside the product's guardrails (min_price, max_price).",
  override_not_printable:
    "The override's price is not printable in the product's currency and price endings, or its range holds no printable price.",
  method_not_allowed: "This method is not allowed on this path; the Allow header lists those that are.",
  request_timeout: "The request was not received in time; send its headers and body without pausing.",
  model_id_stale: "The model_id is not the current latest artifact; read GET /v2/model for the current id.",
  training_in_progress: "A training run for this company is already in progress.",
  slots_unreadable:
    "The company's model slot record cannot be read; the rule serves until an operator restores or removes it.",
  idempotency_key_in_progress:
    "A request with this Idempotency-Key is still being processed; retry after it has finished.",
  approved_model_stale:
    "expected_approved_model_id is not the current approved artifact; read GET /v2/model for the current id.",
  idempotency_key_reused:
    "This Idempotency-Key was already used with another request (method, path or body); use a new key.",
  rollback_target_invalid:
    "model_id was never approved for this company, or its artifact no longer loads; see GET /v2/model/history.",
  answer_too_large:
    "The answer would hold more prices than the server's limit; ask for fewer days (start_date, end_date).",
  payload_too_large: "The request body is too large.",
  unsupported_media_type: "The request body must be application/json.",
  insufficient_history: "The company has too little sales history to fit a model.",
  headers_too_large: "The request headers are too large.",
  rate_limited: "Too many requests; retry later.",
  cross_origin_refused:
    "This request came from another site or named a host this console does not answer to; use the console's own pages.",
  internal_error: "An internal error occurred.",
  unavailable: "The service is unavailable; retry later.",
};

/**
 * Codes whose answer always says when to retry (DESIGN.md §2). Whoever throws usually knows better and sets
 * `Retry-After` itself (the limiter's window, a training's expected length); these seconds are the fallback so that
 * the promise holds when it does not (a service shutting down, a readiness probe failing).
 */
export const DEFAULT_RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = {
  training_in_progress: 30,
  idempotency_key_in_progress: 5,
  rate_limited: 1,
  unavailable: 5,
};

export interface ApiErrorOptions {
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type of the API: a stable code, a client-safe message, optional headers. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string = DEFAULT_MESSAGES[code], options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.statusCode = codeToStatus(code);
    this.headers = options.headers ?? {};
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: errorCodeSchema.describe("Machine-readable error code."),
      message: z.string().describe("Human-readable text; never contains secrets or internals."),
      request_id: z.uuid().describe("Identifier of this request, also sent as the x-request-id header."),
    }),
  })
  .meta({
    id: "ErrorEnvelope",
    description: "Envelope of every 4xx and 5xx response.",
    examples: [
      {
        error: {
          code: "company_not_found",
          message: "Company not found.",
          request_id: "3f1c8a52-7d0e-4b8e-9a55-0c2f4b8f6e21",
        },
      },
    ],
  });

export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** The envelope of any error, the partner API's (`ErrorEnvelope`) or the console's. */
export function toEnvelope(
  error: ApiError,
  requestId: string,
): { error: { code: ErrorCode; message: string; request_id: string } } {
  return { error: { code: error.code, message: error.message, request_id: requestId } };
}

export interface ErrorResponseDoc {
  description: string;
  content: { "application/json": { schema: typeof errorEnvelopeSchema } };
}

/** Response docs for the given codes, grouped by status, for a route's `schema.response`. */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, ErrorResponseDoc> {
  const out: Record<number, ErrorResponseDoc> = {};
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = codeToStatus(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of byStatus) {
    out[status] = {
      description: `Error envelope with code ${list.join(" or ")}.`,
      content: { "application/json": { schema: errorEnvelopeSchema } },
    };
  }
  return out;
}

/**
 * Codes every route can answer with, whatever it does (not_found: a mistyped path under the base URL;
 * method_not_allowed: a known path with another method, with `Allow`; request_timeout and headers_too_large: the
 * server's bounds on receiving a request).
 */
export const COMMON_ERROR_CODES: readonly ErrorCode[] = [
  "validation_error",
  "not_found",
  "method_not_allowed",
  "request_timeout",
  "headers_too_large",
  "rate_limited",
  "internal_error",
  "unavailable",
];
/** Codes of every bearer-authenticated data route. */
export const DATA_ROUTE_ERROR_CODES: readonly ErrorCode[] = [
  ...COMMON_ERROR_CODES,
  "invalid_token",
  "token_expired",
  "company_not_found",
];
/** Codes of every POST under /v2/, which all take an Idempotency-Key. */
export const IDEMPOTENT_ERROR_CODES: readonly ErrorCode[] = [
  "idempotency_key_in_progress",
  "idempotency_key_reused",
];
/** Codes of every route that takes a JSON body. */
export const BODY_ERROR_CODES: readonly ErrorCode[] = ["payload_too_large", "unsupported_media_type"];
