import { createHash } from "node:crypto";
import type { FastifyInstance, onSendHookHandler } from "fastify";
import { addRouteHook } from "./route-hooks.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set on GET routes whose 200 answers carry a strong ETag and honour If-None-Match with 304. */
    etag?: boolean;
  }
}

/**
 * A strong entity tag of the body: the same bytes give the same tag on every replica and after a restart, and a
 * persisted run never changes, so its tag does not either.
 */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
}

const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"/g;

/**
 * RFC 9110 §13.1.2: `*` matches any current representation; otherwise the weak comparison (an opaque tag equal
 * whether or not either side carries `W/`) against each listed tag.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  for (const tag of header.match(ENTITY_TAG) ?? []) {
    if (tag.replace(/^W\//, "") === opaque) return true;
  }
  return false;
}

/**
 * ETag on each 200 of the scope's routes marked `config.etag` (registered after this call), and 304 Not Modified
 * (with the ETag, no body) when If-None-Match matches it. A route that already knows its body's tag (bytes from a
 * cache that stored the tag beside them) sets the header itself and the body is not hashed again: hashing a 764 KiB
 * run on every read was half the read path's CPU. The answer is still computed; what a match saves is the transfer and the client's
 * parsing.
 */
export function installConditionalGet(app: FastifyInstance): void {
  // Callback style: it never waits, and every read of a run passes through it.
  const hook: onSendHookHandler = (request, reply, payload, done) => {
    if (reply.statusCode !== 200 || (typeof payload !== "string" && !Buffer.isBuffer(payload))) {
      done(null, payload);
      return;
    }
    const given = reply.getHeader("etag");
    const etag = typeof given === "string" ? given : strongEtag(payload);
    if (given === undefined) reply.header("etag", etag);
    const header = request.headers["if-none-match"];
    if (!ifNoneMatchMatches(typeof header === "string" ? header : undefined, etag)) {
      done(null, payload);
      return;
    }
    reply.code(304);
    reply.removeHeader("content-type");
    reply.removeHeader("content-length");
    // RFC 9110 §15.4.5: a 304 repeats the ETag and Vary, not the body's own metadata.
    reply.removeHeader("content-encoding");
    done(null, null);
  };
  addRouteHook(app, "onSend", (route) => route.config?.etag === true, hook);
}
