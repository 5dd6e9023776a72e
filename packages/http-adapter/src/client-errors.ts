import { randomUUID } from "node:crypto";
import { type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { ApiError, type ErrorCode, toEnvelope } from "./errors.js";
import { allowedMethodsOf, methodNotAllowed } from "./method-not-allowed.js";

/** Node's codes for a request its HTTP parser refused, or that did not arrive within the server's bounds. */
const CONNECTION_CODES: Readonly<Record<string, ErrorCode>> = {
  ERR_HTTP_REQUEST_TIMEOUT: "request_timeout",
  HPE_HEADER_OVERFLOW: "headers_too_large",
};

/** What the Node HTTP server hands to `clientError` listeners. */
export interface ConnectionError extends Error {
  code?: string;
  /** The bytes the parser refused, from the start of the request (a Buffer from Node's server). */
  rawPacket?: unknown;
}

/**
 * A method Node's parser does not know (QUERY, FOO) on a path a route serves is a 405 with `Allow`, as a known
 * method would be; the request line is all that was read.
 */
function unknownMethod(app: FastifyInstance, error: ConnectionError): ApiError | undefined {
  if (error.code !== "HPE_INVALID_METHOD" || !Buffer.isBuffer(error.rawPacket)) return undefined;
  const line = /^([!-~]+) (\S+) HTTP\//.exec(error.rawPacket.subarray(0, 2048).toString("latin1"));
  const allow = line?.[2] === undefined ? undefined : allowedMethodsOf(app)?.(line[2]);
  return allow === undefined || line?.[1] === undefined ? undefined : methodNotAllowed(line[1], allow);
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
  const apiError = unknownMethod(this, error) ?? apiErrorOf(error);
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
        Object.entries(apiError.headers)
          .map(([name, value]) => `${name.toLowerCase()}: ${value}\r\n`)
          .join("") +
        "x-content-type-options: nosniff\r\n" +
        "connection: close\r\n\r\n" +
        body,
    );
  }
  socket.destroy();
}
