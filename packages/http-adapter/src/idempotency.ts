import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { ApiError, DEFAULT_RETRY_AFTER_SECONDS } from "./errors.js";
import { addRouteHook } from "./route-hooks.js";

/** A response as first sent, kept to be replayed byte for byte. */
export interface StoredResponse {
  status: number;
  /** The headers that belong to the answer itself (see {@link REPLAYED_HEADERS}), lower-case names. */
  headers: Record<string, string>;
  /** The body exactly as sent (UTF-8 JSON). */
  body: string;
}

/** What is stored under a partner's key. */
export interface IdempotencyRecord {
  /** sha256 of the method, path and canonical body of the request that first used the key. */
  fingerprint: string;
  /** The first response; null while that request is still running. */
  response: StoredResponse | null;
}

export interface IdempotencyClaimInput {
  partnerId: string;
  key: string;
  fingerprint: string;
  /** Random per request: only the claimant may renew, complete or release the record. */
  owner: string;
  now: string;
  leaseUntil: string;
  expiresAt: string;
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; record: IdempotencyRecord };

/**
 * Where idempotency keys live; the server implements it over its database so that every replica sees the same
 * keys. Timestamps are RFC 3339 UTC strings (they compare as text).
 */
export interface IdempotencyStore {
  /**
   * In one atomic step across processes: records the key as in progress for `owner`, unless a live record holds
   * it (one completed and not yet expired, or one in progress whose lease has not run out), which is returned
   * instead. A record past its expiry or its lease is taken over.
   */
  claim(input: IdempotencyClaimInput): Promise<IdempotencyClaim>;
  /** Moves the lease of the owner's in-progress record on. */
  renew(partnerId: string, key: string, owner: string, leaseUntil: string): Promise<void>;
  /** Stores the first response on the owner's record. */
  complete(partnerId: string, key: string, owner: string, response: StoredResponse): Promise<void>;
  /** Forgets the owner's record, so that the next request with the key runs again. */
  release(partnerId: string, key: string, owner: string): Promise<void>;
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  clock?: () => Date;
  /** How long a key is remembered after its first use; default 24 h. */
  ttlMs?: number;
  /**
   * How long an in-progress record holds its key without a sign of life; renewed every third of it while the
   * request runs, so only a request whose process died (or stalled that long) loses its key. Default 60 s.
   */
  leaseMs?: number;
}

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
/** Headers of the first response that are part of the answer and so replayed; the others are per request. */
export const REPLAYED_HEADERS = [
  "content-type",
  "location",
  "preference-applied",
  "etag",
  "cache-control",
] as const;
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const DEFAULT_LEASE_MS = 60_000;
/** Printable ASCII, as the IETF draft's examples and Stripe's keys (UUIDs, ULIDs) are. */
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** JSON with object keys sorted at every level: the same body however its fields were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What makes two requests "the same": method, path (no query) and the validated body, canonical. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest("hex");
}

function keyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !KEY_PATTERN.test(raw)) {
    throw new ApiError(
      "validation_error",
      "Invalid request: Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.",
    );
  }
  return raw;
}

/**
 * Whether a response should answer every retry with the key. A 5xx, and a 4xx that says when to retry
 * (408, 409 training_in_progress, 429: each with Retry-After), are not final: the key is released so that the
 * retry runs. Everything else (2xx, including a 202 of an asynchronous train; other 4xx) is final.
 */
function isFinal(reply: FastifyReply): boolean {
  if (reply.statusCode >= 500) return false;
  return !(reply.statusCode >= 400 && reply.hasHeader("retry-after"));
}

/** Only POSTs take a key; the scope's other routes do not run these hooks at all. */
function isPost(route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.some((method) => String(method).toUpperCase() === "POST");
}

interface Held {
  partnerId: string;
  key: string;
  owner: string;
  timer: NodeJS.Timeout;
}

/**
 * `Idempotency-Key` on every POST of the scope (IETF httpapi draft, Stripe's semantics), per partner: the first
 * request with a key runs and its response is stored; the same key with the same request replays it with
 * `Idempotent-Replayed: true`; with another request, 422 `idempotency_key_reused`; while the first still runs,
 * 409 `idempotency_key_in_progress` with `Retry-After`. Install after the bearer check (it needs the partner and
 * refuses no one the company check would) and before the concurrency cap (a replay takes no slot).
 */
export function installIdempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  const { store } = options;
  const clock = options.clock ?? (() => new Date());
  const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const held = new WeakMap<FastifyRequest, Held>();
  const later = (ms: number) => new Date(clock().getTime() + ms).toISOString();

  function letGo(request: FastifyRequest): Held | undefined {
    const claim = held.get(request);
    if (claim === undefined) return undefined;
    held.delete(request);
    clearInterval(claim.timer);
    return claim;
  }

  addRouteHook(app, "preHandler", isPost, async (request, reply) => {
    const key = keyOf(request);
    const partnerId = request.principal?.partnerId;
    if (key === undefined || partnerId === undefined) return;
    const fingerprint = requestFingerprint(request.method, request.url.split("?")[0] ?? "", request.body);
    const owner = randomUUID();
    const result = await store.claim({
      partnerId,
      key,
      fingerprint,
      owner,
      now: clock().toISOString(),
      leaseUntil: later(leaseMs),
      expiresAt: later(ttlMs),
    });
    if (result.claimed) {
      const timer = setInterval(() => {
        store.renew(partnerId, key, owner, later(leaseMs)).catch((error: unknown) => {
          request.log.warn({ err: error }, "idempotency lease renewal failed");
        });
      }, leaseMs / 3);
      timer.unref();
      held.set(request, { partnerId, key, owner, timer });
      return;
    }
    const { record } = result;
    if (record.fingerprint !== fingerprint) throw new ApiError("idempotency_key_reused");
    if (record.response === null) {
      throw new ApiError("idempotency_key_in_progress", undefined, {
        headers: { "retry-after": String(DEFAULT_RETRY_AFTER_SECONDS.idempotency_key_in_progress) },
      });
    }
    const { status, headers, body } = record.response;
    // A Buffer skips the serializer: the bytes are the first response's.
    return reply
      .code(status)
      .headers(headers)
      .header(IDEMPOTENT_REPLAYED_HEADER, "true")
      .send(Buffer.from(body, "utf8"));
  });

  addRouteHook(app, "onSend", isPost, async (request, reply, payload) => {
    const claim = letGo(request);
    if (claim === undefined) return payload;
    const { partnerId, key, owner } = claim;
    const body =
      typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : null;
    try {
      if (body === null || !isFinal(reply)) {
        await store.release(partnerId, key, owner);
      } else {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        await store.complete(partnerId, key, owner, { status: reply.statusCode, headers, body });
      }
    } catch (error) {
      // The response still goes out; the record stays in progress until its lease ends, then a retry runs again.
      request.log.warn({ err: error }, "idempotency record could not be stored");
    }
    return payload;
  });
}
