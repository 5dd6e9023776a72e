import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  CONSOLE_ERROR_CODES,
  codeToStatus,
  DEFAULT_MESSAGES,
  ERROR_CODES,
  type ErrorCode,
} from "./errors.js";
import { adapterServerOptions, pricingApi } from "./plugin.js";
import type { AuthService, PricingService } from "./services.js";

// The adapter declares these interfaces; here they throw on demand so every registry code crosses the real plugin.
const auth: AuthService = {
  exchangeToken: async () => {
    throw new ApiError("invalid_credentials");
  },
  verifyToken: async (token) => {
    if (token !== "good-token") throw new ApiError("invalid_token");
    return { partnerId: "ptr_1", tokenId: "jti-1" };
  },
  isCompanyAccessible: async (_partnerId, companyId) => companyId !== "company_not_found",
};

const throwNamed = async (input: { company_id: string }): Promise<never> => {
  if (input.company_id === "crash") throw new Error("connect ECONNREFUSED postgres://admin:hunter2@db/prod");
  throw new ApiError(input.company_id as ErrorCode);
};
const pricing: PricingService = {
  listRuns: throwNamed,
  getRecommendations: throwNamed,
  compute: throwNamed,
  train: throwNamed,
  trainAsync: throwNamed,
  getOperation: async ({ operation_id }) => throwNamed({ company_id: operation_id }),
  promote: throwNamed,
  getModel: throwNamed,
  getModelHistory: throwNamed,
  rollback: throwNamed,
  createOverrides: throwNamed,
  listOverrides: throwNamed,
  deleteOverride: throwNamed,
};

let app: FastifyInstance;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
let doc: any;

beforeAll(async () => {
  app = Fastify({ ...adapterServerOptions(), logger: false });
  await app.register(pricingApi, { auth, pricing });
  await app.ready();
  doc = (await app.inject({ url: "/public/v1/openapi.json" })).json();
});
afterAll(async () => app.close());

describe("error registry", () => {
  it("maps every code to one 4xx/5xx status and has a message for it, with no stale entries", () => {
    expect(Object.keys(DEFAULT_MESSAGES).sort()).toEqual([...ERROR_CODES, ...CONSOLE_ERROR_CODES].sort());
    for (const code of [...ERROR_CODES, ...CONSOLE_ERROR_CODES]) {
      const status = codeToStatus(code);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      const error = new ApiError(code);
      expect(error.statusCode).toBe(status);
      expect(error.code).toBe(code);
    }
  });

  it("sends every code through the plugin with its status and the envelope", async () => {
    for (const code of ERROR_CODES) {
      if (code === "company_not_found") continue;
      const res = await app.inject({
        url: `/public/v1/v2/model?company_id=${code}`,
        headers: { authorization: "Bearer good-token" },
      });
      expect(res.statusCode, code).toBe(codeToStatus(code));
      expect(res.json().error.code, code).toBe(code);
      expect(res.json().error.message).toBe(DEFAULT_MESSAGES[code]);
    }
    const hidden = await app.inject({
      url: "/v2/model?company_id=company_not_found",
      headers: { authorization: "Bearer good-token" },
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error.code).toBe("company_not_found");
  });

  it("answers anything unexpected with a 500 internal_error that reveals nothing", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v2/model/train",
      headers: { authorization: "Bearer good-token" },
      payload: { company_id: "crash" },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatchObject({
      code: "internal_error",
      message: DEFAULT_MESSAGES.internal_error,
    });
    expect(res.body).not.toMatch(/hunter2|ECONNREFUSED|postgres/);
  });

  it("documents every code in the OpenAPI: in the envelope's enum and on an operation with its status", () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect([...envelope.properties.error.properties.code.enum].sort()).toEqual([...ERROR_CODES].sort());
    const documented = new Map<string, Set<number>>();
    for (const methods of Object.values(doc.paths) as Record<
      string,
      { responses: Record<string, unknown> }
    >[]) {
      for (const operation of Object.values(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const r = response as {
            description: string;
            content?: Record<string, { schema: { $ref?: string } }>;
          };
          if (Number(status) < 400) continue;
          expect(r.content?.["application/json"]?.schema.$ref).toBe("#/components/schemas/ErrorEnvelope");
          for (const code of r.description.match(/[a-z_]+/g) ?? []) {
            if (!(ERROR_CODES as readonly string[]).includes(code)) continue;
            documented.set(code, (documented.get(code) ?? new Set()).add(Number(status)));
          }
        }
      }
    }
    for (const code of ERROR_CODES) {
      expect(documented.get(code), `${code} is not documented on any operation`).toBeDefined();
      expect([...(documented.get(code) ?? [])], code).toEqual([codeToStatus(code)]);
    }
  });

  it("documents the bearer scheme, the base URL and both auth-free and bearer operations", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/public/v1", description: "Partner API base URL" }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/auth/token"].post.security).toEqual([]);
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/auth/token",
        "/v2/model",
        "/v2/model/history",
        "/v2/model/promote",
        "/v2/model/rollback",
        "/v2/model/train",
        "/v2/operations/{operation_id}",
        "/v2/overrides",
        "/v2/overrides/{override_id}",
        "/v2/recommendations",
        "/v2/recommendations/compute",
        "/v2/runs",
      ].sort(),
    );
    for (const path of Object.keys(doc.paths).filter((p) => p.startsWith("/v2/"))) {
      for (const operation of Object.values(doc.paths[path]) as { security: unknown }[]) {
        expect(operation.security, path).toEqual([{ bearerAuth: [] }]);
      }
    }
  });
});
