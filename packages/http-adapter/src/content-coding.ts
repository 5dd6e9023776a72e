import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { strongEtag } from "./conditional-get.js";
import type { ContentCoding, TaggedBytes, TaggedJson } from "./services.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set on routes that answer through `codedRepresentation`, so the OpenAPI document states their codings. */
    contentCoding?: boolean;
  }
}

/** The codings a cached representation is stored in, the smaller first: it wins when the client ranks them equally. */
export const CONTENT_CODINGS: readonly ContentCoding[] = ["br", "gzip"];

/** Below this a coding saves less than one packet, and each costs a trip to libuv's thread pool. */
export const MIN_CODED_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Each coding at the effort of a dynamic response, not of a static asset: a cache miss waits for it. On a 892 KiB
 * run (100 products x 30 days) gzip level 6 gives 72 KiB in ~8 ms of CPU and brotli quality 5 57 KiB in ~9 ms;
 * brotli 11 would give 37 KiB for ~1.9 s.
 */
function encode(coding: ContentCoding, bytes: Buffer): Promise<Buffer> {
  if (coding === "gzip") return gzipped(bytes, { level: 6 });
  return brotli(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/**
 * The tag of `identityTag`'s representation sent in `coding`: the identity bytes' hash with the coding's name, so
 * it differs per coding as RFC 9110 §8.8.3.3 asks, and every replica and every restart gives the same tag even if
 * its zlib build compresses the same bytes differently (what a client checks is the content it decodes).
 */
export function codedEtag(identityTag: string, coding: ContentCoding): string {
  return `${identityTag.slice(0, -1)}-${coding}"`;
}

/**
 * JSON bytes with their strong ETag and, from `MIN_CODED_BYTES` on, their gzip and brotli codings with theirs.
 * zlib's asynchronous calls compress on libuv's threads, off the event loop; call it once per cached
 * representation, not per request.
 */
export async function taggedJson(bytes: Buffer): Promise<TaggedJson> {
  const etag = strongEtag(bytes);
  if (bytes.byteLength < MIN_CODED_BYTES) return { bytes, etag };
  const coded: Partial<Record<ContentCoding, TaggedBytes>> = {};
  await Promise.all(
    CONTENT_CODINGS.map(async (coding) => {
      coded[coding] = { bytes: await encode(coding, bytes), etag: codedEtag(etag, coding) };
    }),
  );
  return { bytes, etag, coded };
}

const QVALUE = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/** Accept-Encoding's codings (lower case, `x-gzip` as `gzip`) with their weights; malformed members are skipped. */
function acceptedWeights(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const member of header.split(",")) {
    const [name = "", ...params] = member.split(";").map((part) => part.trim());
    if (name === "") continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      if (!/^q=/i.test(param)) continue;
      const match = QVALUE.exec(param);
      if (match?.[1] === undefined) valid = false;
      else q = Number(match[1]);
    }
    const coding = name.toLowerCase() === "x-gzip" ? "gzip" : name.toLowerCase();
    if (valid && !weights.has(coding)) weights.set(coding, q);
  }
  return weights;
}

/** Parsed Accept-Encoding values, by the header's text: a client sends the same one on every call. */
const parsedHeaders = new Map<string, ReadonlyMap<string, number>>();
/** Bounds the memo whatever clients send: at most this many values of at most this length, cleared when full. */
const MEMO_ENTRIES = 64;
const MEMO_HEADER_LENGTH = 256;

function weightsOf(header: string): ReadonlyMap<string, number> {
  const known = parsedHeaders.get(header);
  if (known !== undefined) return known;
  const weights = acceptedWeights(header);
  if (header.length <= MEMO_HEADER_LENGTH) {
    if (parsedHeaders.size >= MEMO_ENTRIES) parsedHeaders.clear();
    parsedHeaders.set(header, weights);
  }
  return weights;
}

/**
 * The coding to send (`null`: identity), by RFC 9110 §12.5.3: the available coding of highest weight (`*` weighs
 * codings not listed; `q=0` refuses one), the smaller on a tie; identity only if it is weighted above it. Without
 * the header, identity: a client that did not ask may not decode (curl without `--compressed`). When nothing
 * offered is acceptable, identity too, as the RFC asks, rather than a 406.
 */
export function negotiateCoding(
  header: string | undefined,
  available: readonly ContentCoding[],
): ContentCoding | null {
  if (header === undefined) return null;
  const weights = weightsOf(header);
  const star = weights.get("*");
  let best: ContentCoding | null = null;
  let bestQ = 0;
  for (const coding of CONTENT_CODINGS) {
    if (!available.includes(coding)) continue;
    const q = weights.get(coding) ?? star ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  // Identity is acceptable unless refused; a client that merely lists codings prefers them.
  const identityQ = weights.get("identity") ?? star ?? 0;
  return best !== null && bestQ >= identityQ ? best : null;
}

/** Adds `Accept-Encoding` to the reply's Vary (CORS may have put `Origin` there already). */
function varyOnAcceptEncoding(reply: FastifyReply): void {
  const given = reply.getHeader("vary");
  const list = typeof given === "string" && given.trim() !== "" ? given : "";
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(list)) return;
  reply.header("vary", list === "" ? "Accept-Encoding" : `${list}, Accept-Encoding`);
}

/**
 * Chooses the representation of `json` that the request's Accept-Encoding prefers, sets its Content-Encoding and
 * ETag and `Vary: Accept-Encoding`, and returns its bytes for `reply.send`. The conditional-GET hook then compares
 * If-None-Match with the chosen representation's tag: the same tag it sent this client before.
 */
export function codedRepresentation(request: FastifyRequest, reply: FastifyReply, json: TaggedJson): Buffer {
  varyOnAcceptEncoding(reply);
  const header = request.headers["accept-encoding"];
  const coded = json.coded ?? {};
  const available = CONTENT_CODINGS.filter((coding) => coded[coding] !== undefined);
  const coding = negotiateCoding(typeof header === "string" ? header : undefined, available);
  const chosen = coding === null ? undefined : coded[coding];
  if (coding === null || chosen === undefined) {
    reply.header("etag", json.etag);
    return json.bytes;
  }
  reply.header("content-encoding", coding).header("etag", chosen.etag);
  return chosen.bytes;
}
