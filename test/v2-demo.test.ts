import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource, TSX } from "./tsx-source.js";

const CLI = join(process.cwd(), "packages/server/src/cli.ts");

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the demo's JSON output is inspected loosely
type Json = any;

/**
 * Starts `pricing demo --json --port 0 --console-port 0` (free ports, not the demo's 8080 and 8081) and resolves
 * with its printed document once it serves.
 */
function startDemo(dataDir: string, port = 0): { child: ChildProcess; ready: Promise<Json> } {
  const args = ["demo", "--json", "--port", String(port), "--console-port", "0", "--data-dir", dataDir];
  const child = spawn(TSX, fromSource(CLI, ...args), {
    env: { ...cleanEnv(), PRICING_LOG_LEVEL: "silent", PRICING_TRAIN_SECONDS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const ready = new Promise<Json>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      try {
        resolve(JSON.parse(out));
      } catch {
        // Not the whole document yet.
      }
    });
    child.on("exit", (code) => reject(new Error(`demo exited with ${code}: ${err}`)));
  });
  return { child, ready };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

describe("pricing demo", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-demo-"));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("seeds a partner, two trained and approved companies, one of real sales and a first nightly run, prints keys and curl lines, serves", async () => {
    const { child, ready } = startDemo(dataDir);
    let firstDays: string[] = [];
    try {
      const demo = await ready;
      firstDays = demo.batch.companies.map((c: Json) => c.as_of);
      expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(demo.companies).toEqual(["demo-grocer", "demo-fashion", "complete-journey"]);
      expect(demo.access_key).toMatch(/^ak_/);
      expect(demo.secret_key).toMatch(/^sk_/);
      const curl: string[] = demo.curl;
      for (const path of [
        "/auth/token",
        "/v2/recommendations",
        "/v2/runs",
        "/compute",
        "/model/train",
        "/v2/model?",
        "/model/promote",
      ]) {
        expect(
          curl.some((line) => line.includes(path)),
          path,
        ).toBe(true);
      }
      expect(curl[0]).toContain(demo.secret_key);
      // The operator console, on its own port.
      expect(demo.console_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(demo.console_url).not.toBe(demo.url);
      const login = await fetch(`${demo.console_url}/login`);
      expect([login.status, (await login.text()).includes("Pricing console")]).toEqual([200, true]);

      const tokenRes = await fetch(`${demo.url}/public/v1/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: demo.access_key, secret_key: demo.secret_key }),
      });
      const token = ((await tokenRes.json()) as Json).access_token;
      for (const company of demo.companies) {
        const model = (await (
          await fetch(`${demo.url}/public/v1/v2/model?company_id=${company}`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as Json;
        // The real-sales company is not trained: the online learner prices it, its rows sourced "rule".
        expect(model.source).toBe(company === "complete-journey" ? "rule" : "approved");
        const recs = (await (
          await fetch(`${demo.url}/v2/recommendations?company_id=${company}`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as Json;
        expect(recs.run).toMatchObject({ kind: "nightly", source: model.source, model_id: model.model_id });
        expect(recs.recommendations.length).toBeGreaterThan(0);
        expect(recs.recommendations[0].expected_units_p90).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await stop(child);
    }

    // A second start reuses the data and issues fresh keys (the old secret cannot be shown again).
    const second = startDemo(dataDir);
    try {
      const demo = await second.ready;
      // The day's run is there, unless the company's own day turned between the starts (Berlin's midnight is 23:00 UTC).
      expect(demo.batch.companies.map((c: Json) => c.status)).toEqual(
        demo.batch.companies.map((c: Json, i: number) => (c.as_of === firstDays[i] ? "exists" : "created")),
      );
      const tokenRes = await fetch(`${demo.url}/public/v1/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: demo.access_key, secret_key: demo.secret_key }),
      });
      expect(tokenRes.status).toBe(200);

      // A third start on the port the running demo holds fails before it rotates the keys the running demo printed.
      const third = startDemo(dataDir, Number(new URL(demo.url).port));
      const refused = await third.ready.then(
        () => "served",
        (error: Error) => error.message,
      );
      const again = await fetch(`${demo.url}/public/v1/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: demo.access_key, secret_key: demo.secret_key }),
      });
      expect(again.status).toBe(200);
      expect(refused).toMatch(/cannot listen on .*EADDRINUSE/);
    } finally {
      await stop(second.child);
    }
  }, 120_000);
});
