import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_SECONDS, type SessionStore } from "./sessions.js";

export const SESSION_COOKIE = "pricing_console";

/** Header a bearer client names its operator with (recorded as `console:<name>`). */
export const OPERATOR_HEADER = "x-operator-name";

/** An operator's name as it is recorded in `by`: letters, digits, spaces and `._@-`, 1 to 64 characters. */
const OPERATOR_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._@-]{0,63}$/u;

/** The trimmed name, or null when it is not one `by` may carry. */
export function operatorName(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const name = raw.trim();
  return OPERATOR_NAME.test(name) ? name : null;
}

/** Who acted, as the settings history and the slot history record the console's changes. */
export function consoleActor(operator: string): string {
  return `console:${operator}`;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Constant-time comparison of a presented token with the configured one (both hashed to one length first). */
export function tokenMatches(presented: string, token: string): boolean {
  return timingSafeEqual(digest(presented), digest(token));
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

export interface ConsoleAuth {
  /** The operator's name, from the session cookie or the bearer token and its name header; null when neither. */
  operatorOf(request: FastifyRequest): string | null;
  /** Whether the login form must ask for the token (one is configured). */
  readonly needsToken: boolean;
  /** Checks a login; the session id to set, or null when the token is wrong. */
  login(token: string | undefined, operator: string): string | null;
  setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string): void;
  logout(request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * The console's credentials: a session (login form: the token, when one is configured, and the operator's name),
 * or `Authorization: Bearer <token>` with `X-Operator-Name` for scripts. Without a configured token (loopback
 * only) the login takes the name alone, and bearer headers are ignored.
 */
export function createConsoleAuth(sessions: SessionStore, token: string | undefined): ConsoleAuth {
  return {
    needsToken: token !== undefined,
    operatorOf(request) {
      const authorization = request.headers.authorization;
      if (token !== undefined && authorization !== undefined) {
        const [scheme, presented] = authorization.split(" ");
        if (scheme?.toLowerCase() !== "bearer" || presented === undefined) return null;
        if (!tokenMatches(presented, token)) return null;
        return operatorName(request.headers[OPERATOR_HEADER]);
      }
      const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
      return id === undefined ? null : (sessions.get(id)?.operator ?? null);
    },
    login(presented, operator) {
      if (token !== undefined && (presented === undefined || !tokenMatches(presented, token))) return null;
      return sessions.create(operator);
    },
    setSessionCookie(request, reply, id) {
      reply.header("set-cookie", cookie(request, id, SESSION_SECONDS));
    },
    logout(request, reply) {
      const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (id !== undefined) sessions.remove(id);
      reply.header("set-cookie", cookie(request, "", 0));
    },
  };
}

/**
 * `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's page sends it), expiring with the session;
 * `Secure` when the request came over TLS (a proxy in front, trusted through `trustProxy`).
 */
function cookie(request: FastifyRequest, value: string, maxAge: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}
