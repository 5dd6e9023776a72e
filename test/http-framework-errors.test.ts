import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./http-harness.js";
import { type RawResponse, rawRequest } from "./raw-http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startHarness();
  url = await h.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => h.destroy());

function expectEnvelope(res: RawResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  expect(res.json).toEqual({
    error: { code, message: expect.any(String), request_id: expect.stringMatching(UUID) },
  });
  expect(res.headers["x-request-id"]).toBe(res.json.error.request_id);
  const logged = h.logs.filter((l) => l.includes(res.json.error.request_id));
  expect(
    logged.some((l) => l.includes(`"code":"${code}"`)),
    logged.join("\n"),
  ).toBe(true);
}

describe("errors raised before routing are the envelope with a request id", () => {
  it("a malformed URL (FST_ERR_BAD_URL) is 400 validation_error, without echoing the URL", async () => {
    const secret = "sk_ThisMustNotBeEchoed";
    const res = await h.app.inject({ url: `/public/v1/v2/%E0%A4%A?secret_key=${secret}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const body = res.json();
    expect(body).toEqual({
      error: {
        code: "validation_error",
        message: expect.any(String),
        request_id: expect.stringMatching(UUID),
      },
    });
    expect(res.headers["x-request-id"]).toBe(body.error.request_id);
    expect(res.body).not.toContain(secret);
    expect(h.logs.join("\n")).not.toContain(secret);
    const raw = await rawRequest(url, [
      "GET /public/v1/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expectEnvelope(raw, 400, "validation_error");
  });

  it("headers over Node's limit are 431 headers_too_large, answered by the HTTP server's clientError path", async () => {
    const res = await rawRequest(url, [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    ]);
    expectEnvelope(res, 431, "headers_too_large");
  });

  it("a request the HTTP parser cannot read is 400 validation_error from the same path", async () => {
    const res = await rawRequest(url, ["GARBAGE\r\n\r\n"]);
    expectEnvelope(res, 400, "validation_error");
    const smuggled = await rawRequest(url, [
      "POST /public/v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]);
    expectEnvelope(smuggled, 400, "validation_error");
  });

  it("QUERY (refused by Fastify without Content-Type) or a method Node's parser does not know (FOO) on a known path is 405 with Allow; elsewhere 400", async () => {
    const query = await rawRequest(url, [
      "QUERY /public/v1/v2/runs?company_id=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expectEnvelope(query, 405, "method_not_allowed");
    expect(query.headers.allow).toBe("GET, HEAD");
    const foo = await rawRequest(url, [
      "FOO /public/v1/auth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expectEnvelope(foo, 405, "method_not_allowed");
    expect(foo.headers.allow).toBe("POST");
    const unknownPath = await rawRequest(url, [
      "QUERY /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expectEnvelope(unknownPath, 400, "validation_error");
  });
});
