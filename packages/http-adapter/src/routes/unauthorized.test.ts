import type { InjectOptions } from "fastify";
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../errors.js";
import {
  BEARER_CHALLENGE,
  bearer,
  COMPANY,
  expectError,
  startAdapterApp,
  tokens,
} from "../test-support/adapter-app.js";

// Every /v2/ route, as the plugin registers them, must refuse a bad token in onRequest: before the body is read,
// before validation, before the company check, and without calling a service (the fixture's services all reject).

const BASE = "/public/v1";

interface DocumentedOperation {
  parameters?: { name: string; in: string; required?: boolean; example?: unknown }[];
  requestBody?: { content: { "application/json": { example?: unknown } } };
}

interface V2Route {
  method: string;
  url: string;
  /** The operation's own example request from the OpenAPI document, which a valid token would get through. */
  example: InjectOptions;
}

/** The plugin's /v2/ routes from Fastify's route table (HEAD twins of GET apart), each with its documented example. */
async function v2Routes(): Promise<V2Route[]> {
  const { app, routes } = await startAdapterApp();
  const doc = (await app.inject({ url: `${BASE}/openapi.json` })).json() as {
    paths: Record<string, Record<string, DocumentedOperation>>;
  };
  return routes
    .filter((r) => r.url.includes("/v2/") && r.method !== "HEAD")
    .map(({ method, url: pattern }) => {
      // Fastify's `:name` path parameters are OpenAPI's `{name}`; a request fills them with their examples.
      const url = pattern.replace(/:(\w+)/g, "{$1}");
      const operation = doc.paths[url.replace(BASE, "")]?.[method.toLowerCase()] ?? {};
      const path = url.replace(/\{(\w+)\}/g, (_, name: string) =>
        String(operation.parameters?.find((p) => p.in === "path" && p.name === name)?.example),
      );
      const query = Object.fromEntries(
        (operation.parameters ?? [])
          .filter((p) => p.in === "query" && p.required)
          .map((p) => [p.name, String(p.example)]),
      );
      const payload = operation.requestBody?.content["application/json"].example as InjectOptions["payload"];
      const example: InjectOptions =
        method === "GET" || method === "DELETE"
          ? { method, url: path, query }
          : { method: "POST", url: path, ...(payload ? { payload } : {}) };
      return { method, url, example };
    });
}

const badCredentials: { name: string; authorization: () => Promise<string | undefined>; code: ErrorCode }[] =
  [
    { name: "missing", authorization: async () => undefined, code: "invalid_token" },
    {
      name: "malformed: not a bearer credential",
      authorization: async () => "Basic YWs6c2s=",
      code: "invalid_token",
    },
    {
      name: "malformed: bearer without a token",
      authorization: async () => "Bearer ",
      code: "invalid_token",
    },
    { name: "malformed: not a JWT", authorization: async () => "Bearer not-a-jwt", code: "invalid_token" },
    { name: "expired", authorization: async () => `Bearer ${await tokens.expired()}`, code: "token_expired" },
    { name: "forged", authorization: async () => `Bearer ${await tokens.forged()}`, code: "invalid_token" },
  ];

describe("401 on every /v2/ route", () => {
  it("the route table is the documented operations, under /public/v1 and again at the host root", async () => {
    const { app } = await startAdapterApp();
    const doc = (await app.inject({ url: `${BASE}/openapi.json` })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v2/"))
      .flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`));
    const registered = (await v2Routes()).map((r) => `${r.method} ${r.url}`);
    expect(documented.length).toBeGreaterThan(0);
    expect(registered.sort()).toEqual(
      documented.flatMap((operation) => [operation, operation.replace(" ", ` ${BASE}`)]).sort(),
    );
  });

  it.each(badCredentials)(
    "answers 401 $code with the envelope and the challenge: $name token",
    async (bad) => {
      const { app } = await startAdapterApp();
      const authorization = await bad.authorization();
      for (const route of await v2Routes()) {
        const headers = authorization === undefined ? {} : { authorization };
        const res = await app.inject({ ...route.example, headers });
        const where = `${route.method} ${route.url}`;
        expect(res.statusCode, where).toBe(401);
        expectError(res, 401, bad.code);
        expect(res.headers["www-authenticate"], where).toBe(BEARER_CHALLENGE);
      }
    },
  );

  it("checks the token before anything else: an invalid, oversized or non-JSON body without a token is a 401", async () => {
    const { app } = await startAdapterApp({ bodyLimit: 1024 });
    const posts = (await v2Routes()).filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    const bodies: { payload: string; type: string }[] = [
      { payload: JSON.stringify({ unknown_field: true }), type: "application/json" },
      { payload: JSON.stringify({ company_id: "x".repeat(4096) }), type: "application/json" },
      { payload: "company_id=acme-eu", type: "text/plain" },
    ];
    for (const route of posts) {
      for (const { payload, type } of bodies) {
        const res = await app.inject({
          method: "POST",
          url: route.url,
          payload,
          headers: { "content-type": type },
        });
        expect(res.statusCode, `${route.url} ${type}`).toBe(401);
        expectError(res, 401, "invalid_token");
      }
    }
  });

  it("the HEAD twins of the GET routes refuse a missing token with the challenge too", async () => {
    const { app, routes } = await startAdapterApp();
    const heads = routes.filter((r) => r.url.includes("/v2/") && r.method === "HEAD");
    expect(heads.length).toBeGreaterThan(0);
    for (const route of heads) {
      const res = await app.inject({ method: "HEAD", url: route.url, query: { company_id: COMPANY } });
      expect(res.statusCode, route.url).toBe(401);
      expect(res.headers["www-authenticate"], route.url).toBe(BEARER_CHALLENGE);
      expect(res.headers["x-request-id"], route.url).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("with a valid token the same example requests reach the service, so the 401s above are the token's doing", async () => {
    const { app, logs } = await startAdapterApp();
    const headers = await bearer();
    for (const route of await v2Routes()) {
      const res = await app.inject({ ...route.example, headers });
      // The fixture's services all reject: reaching one ends in a 500 whose cause is logged.
      const error = expectError(res, 500, "internal_error");
      const logged = logs.find((line) => line.request_id === error.request_id && line.level === 50);
      expect(JSON.stringify(logged), `${route.method} ${route.url}`).toContain(
        "was not expected to be called",
      );
    }
  });
});
