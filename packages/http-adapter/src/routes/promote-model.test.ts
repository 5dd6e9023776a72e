import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { modelReportSchema } from "../schemas/model.js";
import type { RequestContext } from "../services.js";
import {
  BEARER_CHALLENGE,
  bearer,
  COMPANY,
  documentedErrors,
  expectError,
  OTHER_COMPANY,
  PARTNER,
  startAdapterApp,
  tokens,
} from "../test-support/adapter-app.js";
import { type ModelReport, PROMOTE_ERROR_CODES, type PromoteRequest } from "./promote-model.js";

const LATEST = "mdl_6";
const slot = {
  model_id: LATEST,
  version: 6,
  trained_at: "2026-11-21T10:00:00.000Z",
  metrics: { upliftPct: 3.1 },
};
const promoted: ModelReport = {
  company_id: COMPANY,
  source: "approved",
  model_id: LATEST,
  latest: slot,
  approved: { ...slot, approved_at: "2026-11-21T12:00:00.000Z" },
  fallback_reason: null,
};

/** The one operation behind the route: promotes only the current latest id, as the contract says. */
function promoteStub() {
  const calls: { input: PromoteRequest; ctx: RequestContext }[] = [];
  return {
    calls,
    promote: async (input: PromoteRequest, ctx: RequestContext) => {
      calls.push({ input, ctx });
      if (input.model_id !== LATEST) throw new ApiError("model_id_stale");
      return promoted;
    },
  };
}

const url = "/v2/model/promote";
const body = { company_id: COMPANY, model_id: LATEST };

describe("POST /v2/model/promote", () => {
  it("200: the model report after promotion, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = promoteStub();
    const { app } = await startAdapterApp({ pricing: stub });
    for (const path of ["/public/v1/v2/model/promote", url]) {
      const res = await app.inject({ method: "POST", url: path, payload: body, headers: await bearer() });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(modelReportSchema.parse(res.json())).toEqual(promoted);
      const { input, ctx } = stub.calls.at(-1)!;
      expect(input).toEqual(body);
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  describe("errors", () => {
    const errors = documentedErrors(PROMOTE_ERROR_CODES);

    errors.it("validation_error", "names the missing, ill-typed or unknown field; bad JSON", async () => {
      const stub = promoteStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const cases: [Record<string, unknown>, string][] = [
        [{ company_id: COMPANY }, "model_id"],
        [{ model_id: LATEST }, "company_id"],
        [{ company_id: COMPANY, model_id: "" }, "model_id"],
        [{ company_id: COMPANY, model_id: 6 }, "model_id"],
        [{ ...body, force: true }, "force"],
      ];
      for (const [payload, field] of cases) {
        const res = await app.inject({ method: "POST", url, payload, headers });
        expect(expectError(res, 400, "validation_error").message, JSON.stringify(payload)).toContain(field);
      }
      const empty = await app.inject({
        method: "POST",
        url,
        payload: "",
        headers: { ...headers, "content-type": "application/json" },
      });
      expectError(empty, 400, "validation_error");
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: promoteStub() });
      const headers = await bearer();
      expectError(await app.inject({ method: "POST", url: `${url}/${LATEST}`, headers }), 404, "not_found");
      expectError(await app.inject({ url, query: body, headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = promoteStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ method: "POST", url, payload: { ...body, company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ method: "POST", url, payload: { ...body, company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("model_id_stale", "a model_id that is not the current latest", async () => {
      const { app } = await startAdapterApp({ pricing: promoteStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { ...body, model_id: "mdl_5" },
        headers: await bearer(),
      });
      expect(expectError(res, 409, "model_id_stale").message).toBe(DEFAULT_MESSAGES.model_id_stale);
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: promoteStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: body,
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: promoteStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: body,
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("payload_too_large", "a body over 64 KiB", async () => {
      const stub = promoteStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const res = await app.inject({
        method: "POST",
        url,
        payload: JSON.stringify({ ...body, note: "x".repeat(64 * 1024) }),
        headers: { ...(await bearer()), "content-type": "application/json" },
      });
      expectError(res, 413, "payload_too_large");
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("unsupported_media_type", "a body that is not application/json", async () => {
      const { app } = await startAdapterApp({ pricing: promoteStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: `<promote company_id="${COMPANY}" model_id="${LATEST}"/>`,
        headers: { ...(await bearer()), "content-type": "application/xml" },
      });
      expectError(res, 415, "unsupported_media_type");
    });

    errors.it("rate_limited", "over the partner's data limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: promoteStub(),
        rateLimits: { dataPerPartner: { max: 1, windowMs: 60_000 } },
      });
      const request = { method: "POST" as const, url, payload: body, headers: await bearer() };
      expect((await app.inject(request)).statusCode).toBe(200);
      const limited = await app.inject(request);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: {
          promote: async () => {
            throw new Error("EACCES: permission denied, open '/srv/artifacts/acme-eu/approved.json'");
          },
        },
      });
      const request = { method: "POST" as const, url, payload: body, headers: await bearer() };
      const res = await app.inject(request);
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/EACCES|approved\.json/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: { promote: async () => ({ ...promoted, approved: { ...slot } }) as unknown as ModelReport },
      });
      const malformed = await broken.inject({ ...request, headers: await bearer() });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "slots busy, with the service's Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: {
          promote: async () => {
            throw new ApiError("unavailable", "The model slots are busy; retry shortly.", {
              headers: { "Retry-After": "1" },
            });
          },
        },
      });
      const res = await app.inject({ method: "POST", url, payload: body, headers: await bearer() });
      expectError(res, 503, "unavailable");
      expect(res.headers["retry-after"]).toBe("1");
    });

    errors.itRefusesWhileReceiving("POST", "/public/v1/v2/model/promote");
    errors.itCoversEveryDocumentedCode();
  });
});
