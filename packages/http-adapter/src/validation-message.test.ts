import { describe, expect, it } from "vitest";
import { bearer, COMPANY, startAdapterApp } from "./test-support/adapter-app.js";

describe("validation messages", () => {
  it("repeat at most 64 characters of a key, and name at most 5 unknown keys", async () => {
    const { app } = await startAdapterApp({});
    const headers = await bearer();
    const longKey = "k".repeat(8_192);
    const body = await app.inject({
      method: "POST",
      url: "/public/v1/v2/recommendations/compute",
      headers,
      payload: { company_id: COMPANY, [longKey]: 1 },
    });
    expect(body.statusCode).toBe(400);
    const bodyMessage = body.json().error.message as string;
    expect(bodyMessage).toBe(
      `Invalid request: body: Unrecognized key: "${"k".repeat(64)}... (8192 characters)"`,
    );

    const query = Array.from({ length: 2_000 }, (_, i) => `unknown_parameter_${i}=1`).join("&");
    const many = await app.inject({ url: `/public/v1/v2/runs?company_id=${COMPANY}&${query}`, headers });
    expect(many.statusCode).toBe(400);
    const manyMessage = many.json().error.message as string;
    expect(manyMessage).toBe(
      'Invalid request: querystring: Unrecognized keys: "unknown_parameter_0", "unknown_parameter_1", ' +
        '"unknown_parameter_2", "unknown_parameter_3", "unknown_parameter_4" and 1995 more',
    );
    expect(many.body.length).toBeLessThan(400);
  });

  it("cut a long value a schema's message quotes", async () => {
    const { app } = await startAdapterApp({});
    const res = await app.inject({
      url: `/public/v1/v2/runs?company_id=${"c".repeat(5_000)}`,
      headers: await bearer(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(600);
  });
});
