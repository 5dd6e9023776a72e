import { randomUUID } from "node:crypto";
import { type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { ApiError, type ErrorCode, toEnvelope } from "./errors.js";

/** Node's codes for a request its HTTP parser refused, or that did not arrive within the server's bounds. */
const CONNECTION_CODES: Readonly<Record<string, ErrorCode>> = {
  ERR_HTTP_REQUEST_TIMEOUT: "request_timeout",
  HPE_HEADER_OVERFLOW: "headers_too_large",
};

/** What the Node HTTP server hands to `clientError` listeners. */
export interface ConnectionError extends Error {
  code?: string;
}

function apiErrorOf(error: ConnectionError): ApiError {
  const code = error.code === undefined ? undefined : CONNECTION_CODES[error.code];
  // A parse failure's own text (HPE_INVALID_METHOD...) describes our parser, not the client's mistake.
  return code === undefined
    ? new ApiError("validation_error", "The request could not be read.")
    : new ApiError(code);
}

/**
 * The Node HTTP server's `clientError` path: a request refused before Fastify ever sees it (headers too large,
 * unparsable, or not received in time). Answered with the same envelope and a request id of its own, written to
 * the socket as Node would, then the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const apiError = apiErrorOf(error);
  const requestId = randomUUID();
  this.log.info(
    { request_id: requestId, code: apiError.code, status: apiError.statusCode, reason: error.code },
    "request rejected before routing",
  );
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(toEnvelope(apiError, requestId));
    const status = apiError.statusCode;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "content-type: application/json; charset=utf-8\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        "x-content-type-options: nosniff\r\n" +
        "connection: close\r\n\r\n" +
        body,
    );
  }
  socket.destroy();
}
