import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource, TSX } from "./tsx-source.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const exec = promisify(execFile);
const CLI = join(process.cwd(), "packages/server/src/cli.ts");
const V2 = "/public/v1/v2";
const PRODUCTS = 300;
const DAYS = 400;

/** mulberry32: the test's one source of chance, seeded. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** products.csv and sales.csv of PRODUCTS x DAYS rows (120k sales rows), drawn from seed 13. */
async function writeMarket(dir: string): Promise<{ products: string; sales: string; rows: number }> {
  const random = seeded(13);
  const products = ["product_id,name,currency,base_price"];
  const sales = ["date,product_id,price,units_sold"];
  const start = Date.parse("2025-02-01T00:00:00Z");
  for (let p = 0; p < PRODUCTS; p++) {
    const base = 5 + Math.round(random() * 9500) / 100;
    products.push(`bulk-${p},Bulk product ${p},EUR,${base}`);
    for (let d = 0; d < DAYS; d++) {
      const date = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
      const price = Math.round(base * (0.8 + random() * 0.4) * 100) / 100;
      sales.push(`${date},bulk-${p},${price},${Math.floor(random() * 20)}`);
    }
  }
  const files = { products: join(dir, "bulk-products.csv"), sales: join(dir, "bulk-sales.csv") };
  await writeFile(files.products, `${products.join("\n")}\n`);
  await writeFile(files.sales, `${sales.join("\n")}\n`);
  return { ...files, rows: PRODUCTS * DAYS };
}

let h: V2Harness;
let token: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z", undefined, {
    sqliteBusyTimeoutMs: 200,
    rateLimits: { dataPerPartner: { max: 1_000_000, windowMs: 60_000 } },
  });
  await h.seedCompany("bulk", { products: 2 });
  token = await h.token(await h.partner(["bulk"]));
}, 60_000);

afterAll(async () => {
  await h?.destroy();
});

describe("a large CSV import into a running SQLite server", () => {
  it("leaves reads answering while the CLI imports 120k rows in another process, all or nothing", async () => {
    const market = await writeMarket(h.dataDir);
    const before = await h.ctx.repositories.sales.count("bulk");
    const child = exec(
      TSX,
      fromSource(
        CLI,
        "data",
        "import",
        "--company",
        "bulk",
        "--products",
        market.products,
        "--sales",
        market.sales,
      ),
      {
        env: { ...process.env, PRICING_DATA_DIR: h.dataDir, PRICING_LOG_LEVEL: "silent" },
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).then(
      (out) => ({ ok: true as const, ...out }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    let done = false;
    void child.finally(() => {
      done = true;
    });
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    while (!done) {
      for (const path of [`${V2}/runs?company_id=bulk`, `${V2}/model?company_id=bulk`]) {
        const t0 = performance.now();
        const res = await h.get(path, token);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }
    const result = await child;
    if (!result.ok) throw result.error;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
    console.log(
      `import of ${market.rows} rows: ${latencies.length} reads during it, max ${latencies.at(-1)?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect([...statuses.keys()]).toEqual([200]);
    expect(latencies.length).toBeGreaterThan(0);
    expect(await h.ctx.repositories.sales.count("bulk")).toBe(before + market.rows);
  }, 320_000);

  it("answers a write that meets a busy database with 503 unavailable and Retry-After, never 500", async () => {
    // Another process's writer (here another connection) holding the write lock past the busy timeout.
    const holder = new SqliteDatabase(join(h.dataDir, "pricing.sqlite"));
    try {
      holder.exec("begin immediate");
      const read = await h.get(`${V2}/runs?company_id=bulk`, token);
      expect(read.status).toBe(200);
      const busy = await h.post(`${V2}/recommendations/compute`, token, { company_id: "bulk" });
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("1");
      const body = (await busy.json()) as Json;
      expect(body.error).toMatchObject({
        code: "unavailable",
        message: "The database is busy; retry shortly.",
      });
      expect(body.error.request_id).toBe(busy.headers.get("x-request-id"));
    } finally {
      holder.exec("rollback");
      holder.close();
    }
    const after = await h.post(`${V2}/recommendations/compute`, token, { company_id: "bulk" });
    expect(after.status).toBe(200);
  }, 60_000);
});
