import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from "fastify";
import { errors, jwtVerify, SignJWT } from "jose";
import { expect, it, onTestFinished } from "vitest";
import { type RawResponse, rawRequest } from "../../../../test/raw-http.js";
import { ApiError, codeToStatus, type ErrorCode, errorEnvelopeSchema } from "../errors.js";
import { logSerializers } from "../log-redaction.js";
import { adapterServerOptions, type PricingApiOptions, pricingApi } from "../plugin.js";
import type { ModelReport } from "../schemas/model.js";
import type { AuthService, PricingService } from "../services.js";

/**
 * The route tests' fixture: the real plugin in a fresh Fastify app, an `AuthService` that verifies real HS256 JWTs
 * with jose (so expired and forged tokens are cryptographic cases, not string matches), and whatever
 * `PricingService` methods the test declares. Nothing of the adapter itself is replaced.
 */

/** The instant every token is minted and verified at, so that "expired" does not depend on the wall clock. */
export const NOW = new Date("2026-11-21T12:00:00.000Z");
export const PARTNER = "ptr_acme";
export const COMPANY = "acme-eu";
/** A partner with a company of its own: each partner's company is invisible to the other. */
export const OTHER_PARTNER = "ptr_globex";
export const OTHER_COMPANY = "globex-us";

/** The model report of a company without a trained model, served by the rule. */
export const RULE_FALLBACK_REPORT: ModelReport = {
  company_id: COMPANY,
  source: "rule",
  model_id: null,
  latest: null,
  approved: null,
  fallback_reason: "no_artifact",
};

const COMPANIES_BY_PARTNER: Record<string, readonly string[]> = {
  [PARTNER]: [COMPANY],
  [OTHER_PARTNER]: [OTHER_COMPANY],
};

const ISSUER = "https://pricing.test";
const AUDIENCE = "pricing-partner-api";
const TOKEN_LIFETIME_SECONDS = 900;
const signingKey = new TextEncoder().encode("adapter-tests-signing-key-of-at-least-32-bytes");
const foreignKey = new TextEncoder().encode("a-key-the-server-has-never-seen-anywhere-at-all");

async function signToken(partnerId: string, key: Uint8Array, issuedAt: number): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(partnerId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
    .setJti(randomUUID())
    .sign(key);
}

const nowSeconds = Math.floor(NOW.getTime() / 1000);

/** Real JWTs as the verifying `AuthService` below judges them. */
export const tokens = {
  valid: (partnerId = PARTNER) => signToken(partnerId, signingKey, nowSeconds),
  /** Correctly signed, but its 900 s ran out one minute before `NOW`. */
  expired: (partnerId = PARTNER) =>
    signToken(partnerId, signingKey, nowSeconds - TOKEN_LIFETIME_SECONDS - 60),
  /** Well-formed and unexpired, signed with a key that is not the server's. */
  forged: (partnerId = PARTNER) => signToken(partnerId, foreignKey, nowSeconds),
};

/** `Authorization` header of a valid token of `partnerId`. */
export async function bearer(partnerId = PARTNER): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await tokens.valid(partnerId)}` };
}

function unexpected(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`${name} was not expected to be called in this test`));
}

/** Verifies as a production `AuthService` must: signature, algorithm, issuer, audience, expiry, claims. */
function jwtAuthService(overrides: Partial<AuthService>): AuthService {
  return {
    exchangeToken: unexpected("auth.exchangeToken"),
    async verifyToken(token) {
      try {
        const { payload } = await jwtVerify(token, signingKey, {
          algorithms: ["HS256"],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: NOW,
          requiredClaims: ["sub", "jti", "exp"],
        });
        return { partnerId: String(payload.sub), tokenId: String(payload.jti) };
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new ApiError("token_expired");
        throw new ApiError("invalid_token");
      }
    },
    isCompanyAccessible: async (partnerId, companyId) =>
      COMPANIES_BY_PARTNER[partnerId]?.includes(companyId) ?? false,
    ...overrides,
  };
}

function pricingService(declared: Partial<PricingService>): PricingService {
  return {
    listRuns: unexpected("pricing.listRuns"),
    getRecommendations: unexpected("pricing.getRecommendations"),
    compute: unexpected("pricing.compute"),
    train: unexpected("pricing.train"),
    trainAsync: unexpected("pricing.trainAsync"),
    getOperation: unexpected("pricing.getOperation"),
    promote: unexpected("pricing.promote"),
    getModel: unexpected("pricing.getModel"),
    getModelHistory: unexpected("pricing.getModelHistory"),
    createOverrides: unexpected("pricing.createOverrides"),
    listOverrides: unexpected("pricing.listOverrides"),
    deleteOverride: unexpected("pricing.deleteOverride"),
    rollback: unexpected("pricing.rollback"),
    ...declared,
  };
}

export interface AdapterAppOptions extends Omit<PricingApiOptions, "auth" | "pricing"> {
  /** The operations the test exercises; any other one rejects, which the test sees as a 500. */
  pricing?: Partial<PricingService>;
  /** Replaces parts of the JWT-verifying `AuthService` (usually `exchangeToken`). */
  auth?: Partial<AuthService>;
}

export interface AdapterApp {
  app: FastifyInstance;
  /** Every route the plugin registered, as Fastify reported it (HEAD twins of GET routes included). */
  routes: { method: string; url: string }[];
  /** Every log line of the app, parsed. */
  logs: Record<string, unknown>[];
}

/** The plugin in a fresh app with the adapter's own server options; closed when the calling test finishes. */
export async function startAdapterApp(options: AdapterAppOptions = {}): Promise<AdapterApp> {
  const { pricing = {}, auth = {}, ...pluginOptions } = options;
  const logs: Record<string, unknown>[] = [];
  const app = Fastify({
    ...adapterServerOptions(),
    logger: {
      level: "info",
      serializers: logSerializers,
      stream: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
    },
  });
  onTestFinished(() => app.close());
  const routes: AdapterApp["routes"] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  await app.register(pricingApi, {
    openapi: { docs: false },
    ...pluginOptions,
    auth: jwtAuthService(auth),
    pricing: pricingService(pricing),
  });
  await app.ready();
  return { app, routes, logs };
}

/**
 * Asserts the one error envelope: JSON, exactly `{error: {code, message, request_id}}`, the id a UUID equal to the
 * `x-request-id` header. Returns the error for further checks of its message.
 */
export function expectError(
  res: LightMyRequestResponse,
  status: number,
  code: ErrorCode,
): { code: ErrorCode; message: string; request_id: string } {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  // The schema checks the code is in the registry and the id is a UUID; toEqual that nothing else is sent.
  const { error } = errorEnvelopeSchema.parse(res.json());
  expect(res.json()).toEqual({ error: { code, message: error.message, request_id: error.request_id } });
  expect(res.headers["x-request-id"]).toBe(error.request_id);
  return error;
}

/** The `WWW-Authenticate` challenge every 401 for a bearer token carries. */
export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

/**
 * Error tests of one route, named `<status> <code>: <what>`, plus a test that they cover exactly the codes the
 * route documents in its OpenAPI responses: a code without a test, or a test of an undocumented code, fails.
 */
export function documentedErrors(documented: readonly ErrorCode[]) {
  const tested = new Set<ErrorCode>();
  return {
    it(code: ErrorCode, what: string, test: () => Promise<void>): void {
      tested.add(code);
      it(`${codeToStatus(code)} ${code}: ${what}`, test);
    },
    /**
     * The two codes of the Node server's bounds on receiving a request, sent to this route on a listening app with
     * short bounds: headers over the size limit, and a request whose headers stop halfway.
     */
    itRefusesWhileReceiving(method: string, url: string): void {
      tested.add("headers_too_large");
      tested.add("request_timeout");
      const send = async (chunks: string[]) => {
        const app = Fastify({
          ...adapterServerOptions(),
          logger: false,
          http: { headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 },
          requestTimeout: 200,
        });
        onTestFinished(() => app.close());
        await app.register(pricingApi, {
          openapi: { docs: false },
          auth: jwtAuthService({}),
          pricing: pricingService({}),
        });
        return rawRequest(await app.listen({ host: "127.0.0.1", port: 0 }), chunks);
      };
      const expectRaw = (res: RawResponse, code: ErrorCode) => {
        expect(res.status).toBe(codeToStatus(code));
        expect(errorEnvelopeSchema.parse(res.json).error.code).toBe(code);
        expect(res.headers["x-request-id"]).toBe(res.json.error.request_id);
      };
      it(`${codeToStatus("headers_too_large")} headers_too_large: headers over the server's size limit`, async () => {
        const big = `X-Big: ${"a".repeat(20_000)}\r\n`;
        expectRaw(await send([`${method} ${url} HTTP/1.1\r\nHost: x\r\n${big}\r\n`]), "headers_too_large");
      });
      it(`${codeToStatus("request_timeout")} request_timeout: headers that stop halfway`, async () => {
        expectRaw(await send([`${method} ${url} HTTP/1.1\r\nHost: x\r\n`]), "request_timeout");
      });
    },
    itCoversEveryDocumentedCode(): void {
      it("has a test for every error code the route documents, and for no other", () => {
        expect([...tested].sort()).toEqual([...new Set(documented)].sort());
      });
    },
  };
}
