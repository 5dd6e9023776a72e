import { describe, expect, it } from "vitest";
import { documentedErrors, expectError, startAdapterApp, tokens } from "../test-support/adapter-app.js";
import { READY_ERROR_CODES } from "./health.js";

describe("GET /healthz", () => {
  it("200 {status: ok} without a token, with a request id, whatever readiness says", async () => {
    const { app } = await startAdapterApp({ readiness: async () => false });
    const res = await app.inject({ url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("ignores an Authorization header, even an expired token", async () => {
    const { app } = await startAdapterApp();
    const res = await app.inject({
      url: "/healthz",
      headers: { authorization: `Bearer ${await tokens.expired()}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["www-authenticate"]).toBeUndefined();
  });
});

describe("GET /readyz", () => {
  it("200 {status: ok} without a token when the readiness check passes", async () => {
    let checks = 0;
    const { app } = await startAdapterApp({
      readiness: async () => {
        checks += 1;
        return true;
      },
    });
    const res = await app.inject({ url: "/readyz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
    expect(checks).toBe(1);
  });

  describe("errors", () => {
    const errors = documentedErrors(READY_ERROR_CODES);

    errors.it(
      "unavailable",
      "the check says no or throws, with Retry-After, revealing nothing of why",
      async () => {
        const { app: notReady } = await startAdapterApp({ readiness: async () => false });
        const refused = await notReady.inject({ url: "/readyz" });
        expect(expectError(refused, 503, "unavailable").message).toBe("The service is not ready.");
        expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);

        const { app: failing } = await startAdapterApp({
          readiness: async () => {
            throw new Error("connect ECONNREFUSED 10.0.0.5:5432");
          },
        });
        const broken = await failing.inject({ url: "/readyz" });
        expect(expectError(broken, 503, "unavailable").message).toBe("The service is not ready.");
        expect(Number(broken.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        expect(broken.body).not.toMatch(/ECONNREFUSED|5432/);
      },
    );

    errors.itCoversEveryDocumentedCode();
  });

  it("is kept out of the OpenAPI document, like /healthz", async () => {
    const { app } = await startAdapterApp();
    const doc = (await app.inject({ url: "/public/v1/openapi.json" })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz/.test(p))).toEqual([]);
  });
});
