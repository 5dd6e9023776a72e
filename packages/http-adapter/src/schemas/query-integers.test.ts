import { describe, expect, it } from "vitest";
import { bearer, COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";

// Number() reads "0x10" as 16, "1e1" as 10 and " 5" as 5; a partner's typo must be a 400, not another run.
const NOT_DECIMAL = ["0x10", "1e1", " 5", "5 ", "+5", "0b1", "1.0", "", "Infinity"];

describe("integer query parameters are decimal digits only", () => {
  it("400s runs_ago written in any other notation, naming the parameter, without calling the service", async () => {
    let calls = 0;
    const { app } = await startAdapterApp({
      pricing: {
        getRecommendations: async () => {
          calls += 1;
          throw new Error("not reached");
        },
      },
    });
    const headers = await bearer();
    for (const runs_ago of NOT_DECIMAL) {
      const res = await app.inject({
        url: "/public/v1/v2/recommendations",
        query: { company_id: COMPANY, runs_ago },
        headers,
      });
      expect(expectError(res, 400, "validation_error").message, JSON.stringify(runs_ago)).toContain(
        "runs_ago",
      );
    }
    expect(calls).toBe(0);
  });

  it("400s limit and offset in any other notation, and passes plain digits through as numbers", async () => {
    const asked: unknown[] = [];
    const { app } = await startAdapterApp({
      pricing: {
        listRuns: async (input) => {
          asked.push(input);
          return { company_id: COMPANY, total: 0, runs: [] };
        },
      },
    });
    const headers = await bearer();
    for (const field of ["limit", "offset"]) {
      for (const value of NOT_DECIMAL) {
        const res = await app.inject({
          url: "/public/v1/v2/runs",
          query: { company_id: COMPANY, [field]: value },
          headers,
        });
        expect(
          expectError(res, 400, "validation_error").message,
          `${field}=${JSON.stringify(value)}`,
        ).toContain(field);
      }
    }
    expect(asked).toHaveLength(0);
    const ok = await app.inject({
      url: "/public/v1/v2/runs",
      query: { company_id: COMPANY, limit: "16", offset: "010" },
      headers,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(asked).toEqual([{ company_id: COMPANY, limit: 16, offset: 10 }]);
  });
});
