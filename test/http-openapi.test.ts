import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { renderOpenApiDocument } from "@pricing/http-adapter";
import { loadConfig, type RunningServer, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-openapi-"));
  server = await startServer(loadConfig({}, { dataDir, port: 0, logLevel: "silent" }));
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("served OpenAPI document", () => {
  it("is fetched over a real loopback socket and passes `redocly lint` with zero errors and zero warnings", async () => {
    const res = await fetch(`${server.url}/public/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const text = await res.text();
    // What `pricing openapi` prints (the client generator's input) is what the server serves.
    expect(JSON.parse(text)).toEqual(await renderOpenApiDocument());
    const file = join(dataDir, "openapi.json");
    await writeFile(file, text);
    const result = await run("npx", ["redocly", "lint", file, "--format=json"], {
      cwd: process.cwd(),
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    const report = JSON.parse(result.stdout ?? "{}");
    expect(report.totals, result.stderr).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it("keeps the metric `estimatedMargin` as a deprecated alias of `networkEstimatedMargin`", async () => {
    const metricsSchemas: Record<string, { deprecated?: boolean }>[] = [];
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      const properties = (node as { properties?: Record<string, { deprecated?: boolean }> }).properties;
      if (properties?.networkEstimatedMargin !== undefined) metricsSchemas.push(properties);
      for (const child of Object.values(node)) visit(child);
    };
    visit(await renderOpenApiDocument());
    expect(metricsSchemas.length).toBeGreaterThan(0);
    for (const properties of metricsSchemas) {
      expect(properties.estimatedMargin?.deprecated).toBe(true);
      expect(properties.networkEstimatedMargin?.deprecated).toBeUndefined();
    }
  });
});
