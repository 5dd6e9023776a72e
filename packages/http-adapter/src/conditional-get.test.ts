import { describe, expect, it } from "vitest";
import { ifNoneMatchMatches, strongEtag } from "./conditional-get.js";
import { bearer, COMPANY, startAdapterApp } from "./test-support/adapter-app.js";

describe("If-None-Match (RFC 9110 §13.1.2)", () => {
  const etag = strongEtag('{"a":1}');

  it("makes a strong tag of the bytes: same bytes, same tag; other bytes, another", () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(strongEtag(Buffer.from('{"a":1}'))).toBe(etag);
    expect(strongEtag('{"a":2}')).not.toBe(etag);
  });

  it("matches *, the tag in a list, and weakly (W/ on either side); nothing else", () => {
    expect(ifNoneMatchMatches("*", etag)).toBe(true);
    expect(ifNoneMatchMatches(` "x", ${etag} `, etag)).toBe(true);
    expect(ifNoneMatchMatches(`W/${etag}`, etag)).toBe(true);
    expect(ifNoneMatchMatches(etag, `W/${etag}`)).toBe(true);
    expect(ifNoneMatchMatches('"x", W/"y"', etag)).toBe(false);
    expect(ifNoneMatchMatches(etag.slice(1, -1), etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});

describe("conditional GET on a route marked etag", () => {
  it("sends the ETag on 200, 304 without a body when it matches, 200 again once the answer changes", async () => {
    let total = 0;
    const { app } = await startAdapterApp({
      pricing: { listRuns: async () => ({ company_id: COMPANY, total, runs: [] }) },
    });
    const headers = await bearer();
    const url = `/public/v1/v2/runs?company_id=${COMPANY}`;
    const first = await app.inject({ url, headers });
    expect(first.statusCode).toBe(200);
    const tag = first.headers.etag as string;
    expect(tag).toBe(strongEtag(first.body));
    const same = await app.inject({ url, headers: { ...headers, "if-none-match": tag } });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe("");
    expect(same.headers.etag).toBe(tag);
    expect(same.headers["content-type"]).toBeUndefined();
    const star = await app.inject({ url, headers: { ...headers, "if-none-match": "*" } });
    expect(star.statusCode).toBe(304);
    total = 1;
    const changed = await app.inject({ url, headers: { ...headers, "if-none-match": tag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
    expect(changed.json()).toMatchObject({ total: 1 });
  });

  it("leaves errors and routes without the mark alone", async () => {
    const { app } = await startAdapterApp({
      pricing: {
        getModel: async () => {
          throw new Error("boom");
        },
      },
    });
    const res = await app.inject({
      url: `/public/v1/v2/model?company_id=${COMPANY}`,
      headers: { ...(await bearer()), "if-none-match": "*" },
    });
    expect(res.statusCode).toBe(500);
    expect(res.headers.etag).toBeUndefined();
  });
});
