import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, runCli, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// The operator console listens on its own port (DESIGN §10): nothing of it answers on the public one, and beyond
// loopback the server does not start without the console token, which every request then needs.

const CONSOLE_PATHS = [
  "/",
  "/login",
  "/batches",
  "/companies/acme",
  "/companies/acme/model",
  "/api/companies",
  "/api/companies/acme",
  "/api/batches",
  "/assets/uplot.js",
  "/assets/console.js",
];

describe("the console beside the API", () => {
  let h: V2Harness;
  let consoleUrl: string;

  beforeAll(async () => {
    h = await startV2Harness(undefined, undefined, { consolePort: 0 });
    await h.seedCompany("acme");
    consoleUrl = h.server.consoleUrl ?? "";
  });
  afterAll(async () => h?.destroy());

  it("listens on its own port, and nothing of it answers on the public one", async () => {
    expect(consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(consoleUrl).not.toBe(h.url);
    const login = await fetch(`${consoleUrl}/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain("Pricing console");
    expect((await fetch(`${consoleUrl}/assets/uplot.js`)).status).toBe(200);
    for (const path of CONSOLE_PATHS) {
      for (const method of ["GET", "POST"]) {
        const res = await fetch(`${h.url}${path}`, {
          method,
          redirect: "manual",
          ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
        const body = await res.text();
        expect(body, path).not.toMatch(/console|uPlot/i);
      }
    }
    for (const path of [
      "/api/companies/acme/settings",
      "/api/companies/acme/model/promote",
      "/login",
      "/logout",
    ]) {
      const res = await fetch(`${h.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"force_rule":true}',
      });
      expect(res.status, path).toBe(404);
    }
    expect((await h.ctx.repositories.companies.get("acme"))?.force_rule).toBe(0);
  });

  it("does not serve the partner API on the console's port", async () => {
    const res = await fetch(`${consoleUrl}/public/v1/openapi.json`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/login/);
  });
});

describe("a console beyond loopback", () => {
  const token = "beyond-loopback-console-token-0123456789";
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-console-beyond-"));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));

  it("refuses to start without PRICING_CONSOLE_TOKEN", async () => {
    const err: string[] = [];
    const code = await runCli(["serve", "--port", "0", "--console-port", "0"], {
      env: { PRICING_DATA_DIR: dataDir, PRICING_CONSOLE_HOST: "0.0.0.0" },
      io: { out: () => {}, err: (text) => err.push(text) },
    });
    expect(code).toBe(1);
    expect(err.join("")).toMatch(/PRICING_CONSOLE_TOKEN/);
  });

  it("with the token, answers no request without a session or the bearer token", async () => {
    const config = loadConfig(
      {},
      { dataDir, port: 0, consolePort: 0, consoleHost: "0.0.0.0", consoleToken: token, logLevel: "silent" },
    );
    const server = await startServer(config);
    try {
      const port = new URL(server.consoleUrl ?? "").port;
      const url = `http://127.0.0.1:${port}`;
      const api = await fetch(`${url}/api/companies`);
      expect(api.status).toBe(401);
      expect(await api.text()).not.toContain('companies":');
      const page = await fetch(`${url}/`, { redirect: "manual" });
      expect([page.status, page.headers.get("location")]).toEqual([303, "/login?next=%2F"]);
      const bearer = await fetch(`${url}/api/companies`, {
        headers: { authorization: `Bearer ${token}`, "x-operator-name": "ci" },
      });
      expect(bearer.status).toBe(200);
      expect(await bearer.json()).toEqual({ companies: [] });
    } finally {
      await server.close();
    }
  });
});
