import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { strongEtag } from "./conditional-get.js";
import { codedEtag, MIN_CODED_BYTES, negotiateCoding, taggedJson } from "./content-coding.js";
import { renderOpenApiDocument } from "./openapi-document.js";
import type { TaggedJson } from "./services.js";
import { bearer, COMPANY, startAdapterApp } from "./test-support/adapter-app.js";

/** A JSON body big enough to be coded, repetitive as a run's items are. */
const body = Buffer.from(
  JSON.stringify({
    company_id: COMPANY,
    items: Array.from({ length: 200 }, (_, i) => ({ product_id: `sku-${i}`, price: 19.99 + i / 100 })),
  }),
);

describe("negotiateCoding (RFC 9110 §12.5.3)", () => {
  const both = ["br", "gzip"] as const;

  it("identity without the header, with an empty one, or when nothing offered is acceptable", () => {
    expect(negotiateCoding(undefined, both)).toBeNull();
    expect(negotiateCoding("", both)).toBeNull();
    expect(negotiateCoding("deflate, zstd", both)).toBeNull();
    expect(negotiateCoding("gzip;q=0, br;q=0", both)).toBeNull();
    // Refusing identity too leaves nothing acceptable: identity still, rather than a 406.
    expect(negotiateCoding("deflate, identity;q=0", both)).toBeNull();
    expect(negotiateCoding("gzip", [])).toBeNull();
  });

  it("what real clients send: Node fetch over http, over https, Python requests, curl --compressed", () => {
    expect(negotiateCoding("gzip, deflate", both)).toBe("gzip");
    expect(negotiateCoding("br, gzip, deflate", both)).toBe("br");
    expect(negotiateCoding("gzip, deflate, br, zstd", both)).toBe("br");
    expect(negotiateCoding("deflate, gzip, br, zstd", ["gzip"])).toBe("gzip");
  });

  it("weights: the highest wins, the smaller coding on a tie; case, spaces, x-gzip and * as the RFC says", () => {
    expect(negotiateCoding("br;q=0.5, gzip;q=0.8", both)).toBe("gzip");
    expect(negotiateCoding("gzip;q=0.8, br;q=0.8", both)).toBe("br");
    expect(negotiateCoding(" GZIP ; Q=0.7 ", both)).toBe("gzip");
    expect(negotiateCoding("x-gzip", both)).toBe("gzip");
    expect(negotiateCoding("*", both)).toBe("br");
    expect(negotiateCoding("*;q=0.5, br;q=0", both)).toBe("gzip");
    expect(negotiateCoding("gzip;q=0.4, identity;q=0.5", both)).toBeNull();
    expect(negotiateCoding("gzip;q=0.5, identity;q=0.5", both)).toBe("gzip");
    expect(negotiateCoding("gzip;q=0.2, *;q=0.5", ["gzip"])).toBeNull();
    // A malformed weight drops its member, not the header.
    expect(negotiateCoding("br;q=2, gzip", both)).toBe("gzip");
    expect(negotiateCoding("br;q=abc", both)).toBeNull();
  });
});

describe("taggedJson", () => {
  it("codes the bytes once in gzip and brotli, each decoding to them, each with its own tag", async () => {
    const json = await taggedJson(body);
    expect(json.bytes).toBe(body);
    expect(json.etag).toBe(strongEtag(body));
    const gzip = json.coded?.gzip;
    const br = json.coded?.br;
    expect(gunzipSync(gzip?.bytes ?? Buffer.alloc(0)).equals(body)).toBe(true);
    expect(brotliDecompressSync(br?.bytes ?? Buffer.alloc(0)).equals(body)).toBe(true);
    expect(gzip?.bytes.byteLength).toBeLessThan(body.byteLength / 4);
    expect(gzip?.etag).toBe(codedEtag(json.etag, "gzip"));
    expect(br?.etag).toBe(codedEtag(json.etag, "br"));
    expect(new Set([json.etag, gzip?.etag, br?.etag]).size).toBe(3);
    // Content-derived: the same bytes give the same tags (another replica, a restart).
    const again = await taggedJson(Buffer.from(body));
    expect([again.etag, again.coded?.gzip?.etag, again.coded?.br?.etag]).toEqual([
      json.etag,
      gzip?.etag,
      br?.etag,
    ]);
  });

  it("leaves a body under MIN_CODED_BYTES uncoded", async () => {
    const small = Buffer.from(`{"a":"${"x".repeat(MIN_CODED_BYTES - 20)}"}`);
    expect(small.byteLength).toBeLessThan(MIN_CODED_BYTES);
    expect(await taggedJson(small)).toEqual({ bytes: small, etag: strongEtag(small) });
  });
});

describe("GET /v2/recommendations in the coding the client accepts", () => {
  const url = `/public/v1/v2/recommendations?company_id=${COMPANY}`;
  let json: TaggedJson;

  async function app() {
    json ??= await taggedJson(body);
    const { app } = await startAdapterApp({ pricing: { getRecommendationsJson: async () => json } });
    const headers = await bearer();
    return (extra: Record<string, string> = {}) => app.inject({ url, headers: { ...headers, ...extra } });
  }

  it("sends the stored coded bytes with Content-Encoding, their length, their tag and Vary", async () => {
    const get = await app();
    for (const [accept, coding] of [
      ["gzip, deflate", "gzip"],
      ["br, gzip, deflate", "br"],
    ] as const) {
      const res = await get({ "accept-encoding": accept });
      const coded = json.coded?.[coding];
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-encoding"]).toBe(coding);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.headers.etag).toBe(coded?.etag);
      expect(res.rawPayload.equals(coded?.bytes ?? Buffer.alloc(0))).toBe(true);
      expect(Number(res.headers["content-length"])).toBe(coded?.bytes.byteLength);
    }
    for (const accept of [undefined, "identity", "deflate", "gzip;q=0"]) {
      const res = await get(accept === undefined ? {} : { "accept-encoding": accept });
      expect(res.headers["content-encoding"]).toBeUndefined();
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.headers.etag).toBe(json.etag);
      expect(res.rawPayload.equals(body)).toBe(true);
      expect(Number(res.headers["content-length"])).toBe(body.byteLength);
    }
  });

  it("If-None-Match against the chosen representation's tag: 304 for its own, 200 for another coding's", async () => {
    const get = await app();
    const gzipTag = json.coded?.gzip?.etag ?? "";
    const gzip = { "accept-encoding": "gzip" };
    const same = await get({ ...gzip, "if-none-match": gzipTag });
    expect(same.statusCode).toBe(304);
    expect(same.headers.etag).toBe(gzipTag);
    expect(same.headers.vary).toBe("Accept-Encoding");
    expect(same.headers["content-encoding"]).toBeUndefined();
    expect(same.rawPayload.byteLength).toBe(0);
    // A cache holding both representations lists both tags.
    expect((await get({ ...gzip, "if-none-match": `${json.etag}, ${gzipTag}` })).statusCode).toBe(304);
    // The identity tag does not validate the gzip representation: the full gzip answer, byte for byte.
    const other = await get({ ...gzip, "if-none-match": json.etag });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload.equals(json.coded?.gzip?.bytes ?? Buffer.alloc(0))).toBe(true);
    const identity = await get({ "if-none-match": gzipTag });
    expect(identity.statusCode).toBe(200);
    expect(identity.rawPayload.equals(body)).toBe(true);
    expect((await get({ "if-none-match": json.etag })).statusCode).toBe(304);
  });

  it("a representation given without codings goes out as identity, with Vary all the same", async () => {
    const plain = { bytes: body, etag: strongEtag(body) };
    const { app } = await startAdapterApp({ pricing: { getRecommendationsJson: async () => plain } });
    const res = await app.inject({ url, headers: { ...(await bearer()), "accept-encoding": "gzip, br" } });
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(res.rawPayload.equals(body)).toBe(true);
  });
});

describe("the OpenAPI document", () => {
  it("states Accept-Encoding, Content-Encoding and Vary on the coded read only", async () => {
    type Operation = {
      parameters?: { $ref?: string }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    const doc = (await renderOpenApiDocument()) as { paths: Record<string, { get: Operation }> };
    const read = doc.paths["/v2/recommendations"]?.get;
    expect(read?.parameters).toContainEqual({ $ref: "#/components/parameters/AcceptEncoding" });
    expect(Object.keys(read?.responses["200"]?.headers ?? {})).toEqual(["ETag", "Content-Encoding", "Vary"]);
    expect(Object.keys(read?.responses["304"]?.headers ?? {})).toEqual(["ETag", "Vary"]);
    const runs = doc.paths["/v2/runs"]?.get;
    expect(runs?.parameters).not.toContainEqual({ $ref: "#/components/parameters/AcceptEncoding" });
    expect(Object.keys(runs?.responses["200"]?.headers ?? {})).toEqual(["ETag"]);
  });
});
