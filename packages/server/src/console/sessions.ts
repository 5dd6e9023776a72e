import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.js";

/** How long a console session lasts from its login; the cookie's `Max-Age` says the same. */
export const SESSION_SECONDS = 8 * 3600;

/** Sessions kept at most; past it the oldest is dropped (its operator logs in again). */
const MAX_SESSIONS = 1000;

export interface ConsoleSession {
  operator: string;
  expiresAt: number;
}

export interface SessionStore {
  /** A new session id (256 random bits) for `operator`. */
  create(operator: string): string;
  /** The live session under `id`, or undefined (unknown, ended or expired). */
  get(id: string): ConsoleSession | undefined;
  remove(id: string): void;
}

/**
 * Console sessions, in this process's memory: a restart logs every operator out, and each replica keeps its own
 * (a browser sticks to the one console it logged into).
 */
export function createSessionStore(clock: Clock): SessionStore {
  const sessions = new Map<string, ConsoleSession>();
  return {
    create(operator) {
      const now = clock().getTime();
      for (const [id, session] of sessions) if (session.expiresAt <= now) sessions.delete(id);
      while (sessions.size >= MAX_SESSIONS) {
        const oldest = sessions.keys().next();
        if (oldest.done) break;
        sessions.delete(oldest.value);
      }
      const id = randomBytes(32).toString("base64url");
      sessions.set(id, { operator, expiresAt: now + SESSION_SECONDS * 1000 });
      return id;
    },
    get(id) {
      const session = sessions.get(id);
      if (session === undefined) return undefined;
      if (session.expiresAt > clock().getTime()) return session;
      sessions.delete(id);
      return undefined;
    },
    remove(id) {
      sessions.delete(id);
    },
  };
}
