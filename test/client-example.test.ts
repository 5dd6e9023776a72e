import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig, type RunningServer, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliOk } from "./http-harness.js";
import { fromSource, TSX } from "./tsx-source.js";

// The partner example script, run as a partner would (a child process, keys from the environment), against the
// real server with a company that has products but no persisted run yet.

const exec = promisify(execFile);
const EXAMPLE = join(process.cwd(), "packages/client/examples/next-week-prices.ts");
const COMPANY = "example-co";
const START = "2026-12-01";
const PRODUCTS = [
  { id: "mug", base: 12 },
  { id: "teapot", base: 40 },
];

let dataDir: string;
let server: RunningServer;
let keys: { access_key: string; secret_key: string; partner_id: string };

/** The operator CLI, in-process, on the server's data dir. */
const pricing = (...args: string[]) => cliOk(dataDir, ...args);

async function runExample(env: Record<string, string>) {
  try {
    const { stdout, stderr } = await exec(TSX, fromSource(EXAMPLE), {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-client-example-"));
  server = await startServer(loadConfig({}, { dataDir, host: "127.0.0.1", port: 0, logLevel: "silent" }));
  keys = (await pricing("partner", "create", "--name", "Example Partner")) as unknown as typeof keys;
  await pricing("company", "create", "--id", COMPANY, "--name", "Example Co");
  await pricing("company", "map", "--partner", keys.partner_id, "--company", COMPANY);
  const products = join(dataDir, "products.csv");
  await writeFile(
    products,
    `product_id,name,currency,base_price\n${PRODUCTS.map((p) => `${p.id},${p.id},EUR,${p.base}`).join("\n")}\n`,
  );
  await pricing("data", "import", "--company", COMPANY, "--products", products);
});

afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("examples/next-week-prices.ts", () => {
  it("prints 7 days of prices per product as a table", async () => {
    const result = await runExample({
      PRICING_BASE_URL: `${server.url}/public/v1`,
      PRICING_ACCESS_KEY: keys.access_key,
      PRICING_SECRET_KEY: keys.secret_key,
      PRICING_COMPANY_ID: COMPANY,
      PRICING_START_DATE: START,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    const header = lines.find((l) => l.startsWith("product"))?.split(/\s+/);
    expect(header).toEqual([
      "product",
      "currency",
      "12-01",
      "12-02",
      "12-03",
      "12-04",
      "12-05",
      "12-06",
      "12-07",
    ]);
    for (const product of PRODUCTS) {
      const row = lines.find((l) => l.startsWith(`${product.id} `))?.split(/\s+/);
      expect(row?.[1]).toBe("EUR");
      const prices = (row ?? []).slice(2).map(Number);
      expect(prices).toHaveLength(7);
      // Default guardrails are 0.5x to 2x the base price.
      for (const price of prices) {
        expect(price).toBeGreaterThanOrEqual(product.base * 0.5);
        expect(price).toBeLessThanOrEqual(product.base * 2);
      }
    }
    // Neither key shows up in what the script prints.
    expect(result.stdout).not.toContain(keys.secret_key);
  });

  it("reads the latest persisted run once the batch has produced one", async () => {
    const batch = await pricing("batch", "run", "--company", COMPANY);
    const result = await runExample({
      PRICING_BASE_URL: server.url,
      PRICING_ACCESS_KEY: keys.access_key,
      PRICING_SECRET_KEY: keys.secret_key,
      PRICING_COMPANY_ID: COMPANY,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/from run run_\w+ \(nightly, /);
    const runIds = JSON.stringify(batch).match(/run_[0-9A-Z]{26}/g) ?? [];
    expect(runIds.some((id) => result.stdout.includes(id))).toBe(true);
    const rows = result.stdout.split("\n").filter((l) => PRODUCTS.some((p) => l.startsWith(`${p.id} `)));
    expect(rows).toHaveLength(PRODUCTS.length);
    for (const row of rows) expect(row).not.toContain(" - ");
  });

  it("exits with a readable API error for bad keys, without printing them", async () => {
    const badSecret = `${keys.secret_key}-wrong`;
    const result = await runExample({
      PRICING_BASE_URL: server.url,
      PRICING_ACCESS_KEY: keys.access_key,
      PRICING_SECRET_KEY: badSecret,
      PRICING_COMPANY_ID: COMPANY,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("API error 401 invalid_credentials");
    expect(result.stderr).not.toContain(badSecret);
  });

  it("asks for missing settings instead of calling the API", async () => {
    const result = await runExample({ PRICING_BASE_URL: server.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Set PRICING_ACCESS_KEY");
  });
});
