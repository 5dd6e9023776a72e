import type { components } from "./openapi.gen.js";

/** The codes the served OpenAPI document lists for the error envelope (generated with the other types). */
export type DocumentedErrorCode = components["schemas"]["ErrorEnvelope"]["error"]["code"];

/**
 * Error codes the server documents (generated from its OpenAPI document, so the list cannot fall behind the
 * server's). Other strings can still arrive from a newer server or from a proxy in front of it, hence the open
 * `string` member.
 */
export type ApiErrorCode =
  | DocumentedErrorCode
  /** The response was not the documented error envelope (e.g. an HTML page from a proxy). */
  | "unexpected_response"
  | (string & {});

export interface ApiErrorInit {
  status: number;
  code: ApiErrorCode;
  message: string;
  requestId: string | null;
  /** Seconds from the `Retry-After` header, when the server sent one (429, 409 training_in_progress, 503). */
  retryAfterSeconds?: number | null;
  operation: string;
}

/** An HTTP error answered by the API: the `{error: {code, message, request_id}}` envelope, typed. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ApiErrorCode;
  /** The `request_id` of the envelope (or the `x-request-id` header); quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly retryAfterSeconds: number | null;
  /** The client method that failed, e.g. `getRecommendations`. */
  readonly operation: string;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.operation = init.operation;
  }
}

/** The per-operation deadline passed before the call completed. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  readonly operation: string;
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number) {
    super(`${operation} did not complete within ${timeoutMs} ms`);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The request never got an HTTP answer (connection refused, DNS, TLS, reset) or the answer was unusable.
 * The original error is kept as `cause`; its message is not copied, so nothing from the request can leak here.
 */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  readonly operation: string;

  constructor(operation: string, message: string, options?: { cause?: unknown }) {
    super(`${operation}: ${message}`, options);
    this.operation = operation;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
