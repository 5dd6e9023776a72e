import { describe, expect, it } from "vitest";
import {
  COMPANY,
  expectError,
  RULE_FALLBACK_REPORT,
  startAdapterApp,
  tokens,
} from "./test-support/adapter-app.js";

describe("bearer scheme", () => {
  it("reads the scheme name case-insensitively (RFC 7235): bearer, BEARER and Bearer all pass", async () => {
    const { app } = await startAdapterApp({ pricing: { getModel: async () => RULE_FALLBACK_REPORT } });
    const token = await tokens.valid();
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const res = await app.inject({
        url: "/public/v1/v2/model",
        query: { company_id: COMPANY },
        headers: { authorization: `${scheme} ${token}` },
      });
      expect(res.statusCode, `${scheme}: ${res.body}`).toBe(200);
    }
  });

  it("still refuses another scheme and a token whose case was changed", async () => {
    const { app } = await startAdapterApp({ pricing: { getModel: async () => RULE_FALLBACK_REPORT } });
    const token = await tokens.valid();
    for (const authorization of [`Basic ${token}`, `Bearer ${token.toUpperCase()}`, `Bearer${token}`]) {
      const res = await app.inject({
        url: "/public/v1/v2/model",
        query: { company_id: COMPANY },
        headers: { authorization },
      });
      expectError(res, 401, "invalid_token");
    }
  });
});
