import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { trainResponseSchema } from "../schemas/model.js";
import { type Operation, operationSchema } from "../schemas/operations.js";
import { bearer, COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";
import {
  itAnswers,
  type RouteUnderTest,
  recordCalls,
  routeErrors,
  send,
} from "../test-support/route-errors.js";
import { prefersAsync, TRAIN_ERROR_CODES, type TrainRequest, type TrainResponse } from "./train-model.js";

const trained: TrainResponse = {
  company_id: COMPANY,
  model_id: "mdl_5",
  version: 5,
  trained_at: "2026-11-21T12:00:31.000Z",
  auto_approved: false,
  slots: { latest: "mdl_5", approved: "mdl_4" },
  metrics: { policyMargin: 51258.51, ruleMargin: 49875.62, upliftPct: 2.77, episodes: 48 },
};

const route: RouteUnderTest<TrainRequest, TrainResponse> = {
  method: "POST",
  url: "/public/v1/v2/model/train",
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY, auto_approve: false },
  serve: (train) => ({ pricing: { train } }),
  answer: trained,
  responseSchema: trainResponseSchema,
  malformed: { ...trained, trained_at: "yesterday" },
  documented: TRAIN_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: 42 }, "company_id"],
    [{ company_id: COMPANY, auto_approve: "true" }, "auto_approve"],
    [{ company_id: COMPANY, episodes: 10 }, "episodes"],
  ],
  notFound: [{ method: "POST", url: "/v2/model/train/async" }],
  rateLimit: "trainPerPartner",
};

/** The app with the route's operation failing with `error`. */
const failingWith = (error: ApiError) => startAdapterApp(route.serve(() => Promise.reject(error)));

describe("POST /v2/model/train", () => {
  itAnswers(route, "the new artifact");

  it("200: auto_approve is passed on and reported", async () => {
    const approved: TrainResponse = {
      ...trained,
      auto_approved: true,
      slots: { latest: "mdl_5", approved: "mdl_5" },
    };
    const { calls, options } = recordCalls(route, async (input) => (input.auto_approve ? approved : trained));
    const { app } = await startAdapterApp(options);
    const res = await send(app, route, { request: { company_id: COMPANY, auto_approve: true } });
    expect(res.statusCode).toBe(200);
    expect(trainResponseSchema.parse(res.json())).toEqual(approved);
    expect(calls.map((c) => c.input)).toEqual([{ company_id: COMPANY, auto_approve: true }]);
  });

  it("202: Prefer respond-async queues the training: the operation, its Location and Preference-Applied", async () => {
    const queued: Operation = {
      operation_id: "op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
      kind: "train",
      company_id: COMPANY,
      status: "queued",
      created_at: "2026-11-21T12:00:00.000Z",
      updated_at: "2026-11-21T12:00:00.000Z",
      progress: null,
      result: null,
      error: null,
    };
    const inputs: TrainRequest[] = [];
    const { app } = await startAdapterApp({
      pricing: {
        trainAsync: async (input) => {
          inputs.push(input);
          return queued;
        },
      },
      publicUrl: () => "https://api.example.com/",
    });
    // The configured public URL, never the Host the client sent.
    for (const [url, base] of [
      ["/public/v1/v2/model/train", "https://api.example.com/public/v1"],
      ["/v2/model/train", "https://api.example.com"],
    ] as const) {
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY, auto_approve: true },
        headers: { ...(await bearer()), host: "evil.example", prefer: "wait=5, Respond-Async" },
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(operationSchema.parse(res.json())).toEqual(queued);
      expect(res.headers.location).toBe(`${base}/v2/operations/${queued.operation_id}`);
      expect(res.headers["preference-applied"]).toBe("respond-async");
    }
    expect(inputs).toEqual([
      { company_id: COMPANY, auto_approve: true },
      { company_id: COMPANY, auto_approve: true },
    ]);
    // Without one, the URL is relative: still not the client's Host.
    const relative = await startAdapterApp({ pricing: { trainAsync: async () => queued } });
    const res = await relative.app.inject({
      method: "POST",
      url: "/public/v1/v2/model/train",
      payload: { company_id: COMPANY },
      headers: { ...(await bearer()), host: "evil.example", prefer: "respond-async" },
    });
    expect(res.headers.location).toBe(`/public/v1/v2/operations/${queued.operation_id}`);
  });

  it("reads Prefer as RFC 7240 tokens: respond-async among others, any case; nothing else is async", () => {
    expect(prefersAsync("respond-async")).toBe(true);
    expect(prefersAsync(["return=minimal", "RESPOND-ASYNC; foo=bar"])).toBe(true);
    expect(prefersAsync("return=respond-async")).toBe(false);
    expect(prefersAsync("respond-asynchronously")).toBe(false);
    expect(prefersAsync(undefined)).toBe(false);
  });

  describe("errors", () => {
    const errors = routeErrors(route);

    errors.it(
      "training_in_progress",
      "a second training of the company, with the service's Retry-After",
      async () => {
        const { app } = await failingWith(
          new ApiError("training_in_progress", undefined, { headers: { "Retry-After": "42" } }),
        );
        const res = await send(app, route);
        expect(expectError(res, 409, "training_in_progress").message).toBe(
          DEFAULT_MESSAGES.training_in_progress,
        );
        expect(res.headers["retry-after"]).toBe("42");
      },
    );

    errors.it("insufficient_history", "a company with too little sales history", async () => {
      const { app } = await failingWith(
        new ApiError("insufficient_history", "acme-eu has 12 days of sales; training needs 56."),
      );
      expect(expectError(await send(app, route), 422, "insufficient_history").message).toBe(
        "acme-eu has 12 days of sales; training needs 56.",
      );
    });

    errors.it("slots_unreadable", "a company whose slot record does not parse", async () => {
      const { app } = await failingWith(new ApiError("slots_unreadable"));
      expect(expectError(await send(app, route), 409, "slots_unreadable").message).toBe(
        DEFAULT_MESSAGES.slots_unreadable,
      );
    });

    errors.itCoversEveryDocumentedCode();
  });
});
