import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { trainResponseSchema } from "../schemas/model.js";
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
import { TRAIN_ERROR_CODES, type TrainRequest, type TrainResponse } from "./train-model.js";

const trained: TrainResponse = {
  company_id: COMPANY,
  model_id: "mdl_5",
  version: 5,
  trained_at: "2026-11-21T12:00:31.000Z",
  auto_approved: false,
  slots: { latest: "mdl_5", approved: "mdl_4" },
  metrics: { policyMargin: 51258.51, ruleMargin: 49875.62, upliftPct: 2.77, episodes: 48 },
};

/** The one operation behind the route, recording what it was asked. */
function trainStub(answer: (input: TrainRequest) => Promise<TrainResponse> = async () => trained) {
  const calls: { input: TrainRequest; ctx: RequestContext }[] = [];
  return {
    calls,
    train: async (input: TrainRequest, ctx: RequestContext) => {
      calls.push({ input, ctx });
      return answer(input);
    },
  };
}

const url = "/v2/model/train";

describe("POST /v2/model/train", () => {
  it("200: the new artifact, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = trainStub();
    const { app } = await startAdapterApp({ pricing: stub });
    for (const path of ["/public/v1/v2/model/train", url]) {
      const res = await app.inject({
        method: "POST",
        url: path,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(trainResponseSchema.parse(res.json())).toEqual(trained);
      const { input, ctx } = stub.calls.at(-1)!;
      expect(input).toEqual({ company_id: COMPANY, auto_approve: false });
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  it("200: auto_approve is passed on and reported", async () => {
    const approved: TrainResponse = {
      ...trained,
      auto_approved: true,
      slots: { latest: "mdl_5", approved: "mdl_5" },
    };
    const stub = trainStub(async (input) => (input.auto_approve ? approved : trained));
    const { app } = await startAdapterApp({ pricing: stub });
    const res = await app.inject({
      method: "POST",
      url,
      payload: { company_id: COMPANY, auto_approve: true },
      headers: await bearer(),
    });
    expect(res.statusCode).toBe(200);
    expect(trainResponseSchema.parse(res.json())).toEqual(approved);
    expect(stub.calls.map((c) => c.input)).toEqual([{ company_id: COMPANY, auto_approve: true }]);
  });

  describe("errors", () => {
    const errors = documentedErrors(TRAIN_ERROR_CODES);

    errors.it("validation_error", "names the missing, ill-typed or unknown field; bad JSON", async () => {
      const stub = trainStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const cases: [Record<string, unknown>, string][] = [
        [{}, "company_id"],
        [{ company_id: 42 }, "company_id"],
        [{ company_id: COMPANY, auto_approve: "true" }, "auto_approve"],
        [{ company_id: COMPANY, episodes: 10 }, "episodes"],
      ];
      for (const [payload, field] of cases) {
        const res = await app.inject({ method: "POST", url, payload, headers });
        expect(expectError(res, 400, "validation_error").message, JSON.stringify(payload)).toContain(field);
      }
      const badJson = await app.inject({
        method: "POST",
        url,
        payload: "{company_id: acme-eu}",
        headers: { ...headers, "content-type": "application/json" },
      });
      expect(expectError(badJson, 400, "validation_error").message).toBe(
        "The request body is not valid JSON.",
      );
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: trainStub() });
      const headers = await bearer();
      expectError(await app.inject({ method: "POST", url: `${url}/async`, headers }), 404, "not_found");
      expectError(await app.inject({ url, query: { company_id: COMPANY }, headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = trainStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ method: "POST", url, payload: { company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ method: "POST", url, payload: { company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it(
      "training_in_progress",
      "a second training of the company, with the service's Retry-After",
      async () => {
        const { app } = await startAdapterApp({
          pricing: trainStub(async () => {
            throw new ApiError("training_in_progress", undefined, { headers: { "Retry-After": "42" } });
          }),
        });
        const res = await app.inject({
          method: "POST",
          url,
          payload: { company_id: COMPANY },
          headers: await bearer(),
        });
        expect(expectError(res, 409, "training_in_progress").message).toBe(
          DEFAULT_MESSAGES.training_in_progress,
        );
        expect(res.headers["retry-after"]).toBe("42");
      },
    );

    errors.it("insufficient_history", "a company with too little sales history", async () => {
      const { app } = await startAdapterApp({
        pricing: trainStub(async () => {
          throw new ApiError("insufficient_history", "acme-eu has 12 days of sales; training needs 56.");
        }),
      });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(expectError(res, 422, "insufficient_history").message).toBe(
        "acme-eu has 12 days of sales; training needs 56.",
      );
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: trainStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: trainStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("payload_too_large", "a body over 64 KiB", async () => {
      const stub = trainStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const payload = JSON.stringify({ company_id: COMPANY, padding: "x".repeat(64 * 1024) });
      const res = await app.inject({
        method: "POST",
        url,
        payload,
        headers: { ...(await bearer()), "content-type": "application/json" },
      });
      expectError(res, 413, "payload_too_large");
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("unsupported_media_type", "a body that is not application/json", async () => {
      const { app } = await startAdapterApp({ pricing: trainStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: `company_id=${COMPANY}`,
        headers: { ...(await bearer()), "content-type": "application/x-www-form-urlencoded" },
      });
      expectError(res, 415, "unsupported_media_type");
    });

    errors.it("rate_limited", "over the partner's train limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: trainStub(),
        rateLimits: { trainPerPartner: { max: 1, windowMs: 60_000 } },
      });
      const request = {
        method: "POST" as const,
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      };
      expect((await app.inject(request)).statusCode).toBe(200);
      const limited = await app.inject(request);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: trainStub(async () => {
          throw new Error("worker exited with code 137 (OOM) in /srv/pricing/training-worker.js");
        }),
      });
      const request = {
        method: "POST" as const,
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      };
      const res = await app.inject(request);
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/OOM|training-worker/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: trainStub(async () => ({ ...trained, trained_at: "yesterday" })),
      });
      const malformed = await broken.inject({ ...request, headers: await bearer() });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "a training cut short by shutdown, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: trainStub(async () => {
          throw new ApiError("unavailable", "The server is shutting down; retry the training shortly.");
        }),
      });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(expectError(res, 503, "unavailable").message).toBe(
        "The server is shutting down; retry the training shortly.",
      );
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("POST", "/public/v1/v2/model/train");
    errors.itCoversEveryDocumentedCode();
  });
});
