import { get } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { codedEtag, strongEtag } from "@pricing/http-adapter";
import { readRecommendationsJson } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

const COMPANY = "etag-co";

interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, not decoded. */
  body: Buffer;
}

/** A GET with node:http, which leaves the body as the server coded it. */
function rawGet(url: string, headers: Record<string, string>): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    }).on("error", reject);
  });
}

describe("conditional GET of persisted runs on the real server", () => {
  let h: V2Harness;
  let token: string;

  beforeAll(async () => {
    h = await startV2Harness();
    await h.seedCompany(COMPANY, { products: 2 });
    token = await h.token(await h.partner([COMPANY]));
  });
  afterAll(async () => h?.destroy());

  // Identity asked for explicitly: fetch would otherwise ask for gzip and decode it (the codings' own test below).
  const getIf = (path: string, etag?: string) =>
    fetch(`${h.url}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        "accept-encoding": "identity",
        ...(etag === undefined ? {} : { "if-none-match": etag }),
      },
    });

  it("304 while the run is unchanged; 200 with a new ETag after the next run", async () => {
    expect(
      (await h.post("/public/v1/v2/recommendations/compute", token, { company_id: COMPANY })).status,
    ).toBe(200);
    const paths = [
      `/public/v1/v2/recommendations?company_id=${COMPANY}`,
      `/public/v1/v2/runs?company_id=${COMPANY}`,
      // The host-root duplicate answers the same bytes, so the same tag.
      `/v2/runs?company_id=${COMPANY}`,
    ];
    const tags: string[] = [];
    for (const path of paths) {
      const first = await getIf(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag") ?? "";
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      tags.push(etag);
      const again = await getIf(path, etag);
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe("");
      expect((await getIf(path, `W/${etag}`)).status).toBe(304);
      expect((await getIf(path, '"something-else"')).status).toBe(200);
    }
    expect(tags[2]).toBe(tags[1]);
    // An older run read by runs_ago keeps its tag when newer runs arrive: persisted runs never change.
    expect(
      (await h.post("/public/v1/v2/recommendations/compute", token, { company_id: COMPANY })).status,
    ).toBe(200);
    for (const [i, path] of paths.slice(0, 2).entries()) {
      const next = await getIf(path, tags[i]);
      expect(next.status).toBe(200);
      expect(next.headers.get("etag")).not.toBe(tags[i]);
    }
    const previous = await getIf(`/public/v1/v2/recommendations?company_id=${COMPANY}&runs_ago=1`, tags[0]);
    expect(previous.status).toBe(304);
  });

  it("sends each representation's tag stored with its bytes: byte-exact from the cache, the same after a restart", async () => {
    const base = `/public/v1/v2/recommendations?company_id=${COMPANY}`;
    // Several representations of one run: plain, explained, filtered; each its own bytes and tag.
    const queries = ["", "&explain=true", "&product_id=sku-1", "&product_id=sku-1&explain=true"];
    const seen = new Set<string>();
    for (const query of queries) {
      const first = await getIf(base + query);
      const bytes = Buffer.from(await first.arrayBuffer());
      const etag = first.headers.get("etag") ?? "";
      expect(
        (JSON.parse(bytes.toString()) as { recommendations: unknown[] }).recommendations.length,
      ).toBeGreaterThan(0);
      // Content-derived: the tag is the hash of exactly the bytes sent.
      expect(etag).toBe(strongEtag(bytes));
      expect(seen.has(etag)).toBe(false);
      seen.add(etag);
      const cached = await getIf(base + query);
      expect(Buffer.from(await cached.arrayBuffer()).equals(bytes)).toBe(true);
      expect(cached.headers.get("etag")).toBe(etag);
      expect((await getIf(base + query, etag)).status).toBe(304);
      // A restarted server (or another replica) has an empty cache and makes the same bytes and tag.
      const restarted = await h.newContext();
      const params = new URLSearchParams(query);
      const fresh = await readRecommendationsJson(restarted, {
        company_id: COMPANY,
        runs_ago: 0,
        explain: params.get("explain") === "true",
        ...(params.has("product_id") ? { product_id: params.get("product_id") ?? "" } : {}),
      });
      await restarted.close();
      expect(fresh.bytes.equals(bytes)).toBe(true);
      expect(fresh.etag).toBe(etag);
    }
  });

  it("sends the run gzipped or in brotli to clients that accept it, each coding with its own tag, on real sockets", async () => {
    const url = `${h.url}/public/v1/v2/recommendations?company_id=${COMPANY}`;
    const auth = { authorization: `Bearer ${token}` };
    const identity = await rawGet(url, { ...auth, "accept-encoding": "identity" });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toBe("Accept-Encoding");
    const identityTag = String(identity.headers.etag);
    expect(identityTag).toBe(strongEtag(identity.body));
    const decoders = { gzip: gunzipSync, br: brotliDecompressSync };
    for (const [accept, coding] of [
      ["gzip, deflate", "gzip"],
      ["br, gzip, deflate", "br"],
    ] as const) {
      const coded = await rawGet(url, { ...auth, "accept-encoding": accept });
      expect(coded.status).toBe(200);
      expect(coded.headers["content-encoding"]).toBe(coding);
      expect(coded.headers.vary).toBe("Accept-Encoding");
      expect(Number(coded.headers["content-length"])).toBe(coded.body.byteLength);
      expect(coded.body.byteLength).toBeLessThan(identity.body.byteLength);
      expect(decoders[coding](coded.body).equals(identity.body)).toBe(true);
      const tag = String(coded.headers.etag);
      expect(tag).toBe(codedEtag(identityTag, coding));
      // The same coded bytes from the cache on the next read.
      expect((await rawGet(url, { ...auth, "accept-encoding": accept })).body.equals(coded.body)).toBe(true);
      const notModified = await rawGet(url, { ...auth, "accept-encoding": accept, "if-none-match": tag });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.etag).toBe(tag);
      expect(notModified.headers.vary).toBe("Accept-Encoding");
      expect(notModified.headers["content-encoding"]).toBeUndefined();
      expect(notModified.body.byteLength).toBe(0);
      // The identity tag does not validate this coding's bytes: the whole coded answer again.
      const other = await rawGet(url, { ...auth, "accept-encoding": accept, "if-none-match": identityTag });
      expect(other.status).toBe(200);
      expect(other.body.equals(coded.body)).toBe(true);
    }
    // fetch (undici) asks for gzip by itself and hands back the decoded bytes.
    const fetched = await fetch(url, { headers: auth });
    expect(fetched.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(await fetched.arrayBuffer()).equals(identity.body)).toBe(true);
    // A restarted server (or another replica) gives the same tags to the same codings.
    const restarted = await h.newContext();
    const fresh = await readRecommendationsJson(restarted, {
      company_id: COMPANY,
      runs_ago: 0,
      explain: false,
    });
    await restarted.close();
    expect(fresh.coded?.gzip?.etag).toBe(codedEtag(identityTag, "gzip"));
    expect(fresh.coded?.br?.etag).toBe(codedEtag(identityTag, "br"));
  });
});
