import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig, type RunningServer, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliOk } from "./http-harness.js";

// The client as a partner gets it: `pnpm pack` (which builds it), the tarball installed with npm into an empty
// folder, and a script in that folder run by plain Node, as ES module and as CommonJS, against the real server.

const exec = promisify(execFile);
const CLIENT_DIR = join(process.cwd(), "packages/client");
const COMPANY = "package-co";
const PRODUCTS = ["mug", "teapot"];
const START = "2026-12-01";
const END = "2026-12-03";

/** The partner's script; only the first line differs between the two module systems. */
const script = (load: string) => `${load}
const client = new PricingClient({
  baseUrl: process.env.PRICING_BASE_URL,
  accessKey: process.env.PRICING_ACCESS_KEY,
  secretKey: process.env.PRICING_SECRET_KEY,
});
const company_id = process.env.PRICING_COMPANY_ID;
const model = await client.getModel({ company_id });
const computed = await client.computeRecommendations({
  company_id,
  dry_run: true,
  start_date: "${START}",
  end_date: "${END}",
});
const wrong = new PricingClient({
  baseUrl: process.env.PRICING_BASE_URL,
  accessKey: process.env.PRICING_ACCESS_KEY,
  secretKey: "sk_wrong",
});
let refused = null;
try {
  await wrong.getModel({ company_id });
} catch (error) {
  refused = { typed: error instanceof ApiError, status: error.status, code: error.code };
}
console.log(JSON.stringify({ source: model.source, days: computed.recommendations.map((r) => r.date), refused }));
`;

const ESM = script('import { ApiError, PricingClient } from "@pricing/client";');
// CommonJS has no top-level await: the same body inside an async function.
const CJS = `const { ApiError, PricingClient } = require("@pricing/client");
(async () => {
${script("")}
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

let work: string;
let dataDir: string;
let server: RunningServer;
let keys: { access_key: string; secret_key: string; partner_id: string };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pricing-client-package-"));
  await exec("pnpm", ["pack", "--pack-destination", work], { cwd: CLIENT_DIR });
  const tarball = (await readdir(work)).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball into ${work}`);
  const app = join(work, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), '{ "private": true }\n');
  // Offline: a client that needed anything beyond its own tarball would fail to install here.
  await exec("npm", ["install", "--offline", "--no-audit", "--no-fund", join(work, tarball)], { cwd: app });
  await writeFile(join(app, "prices.mjs"), ESM);
  await writeFile(join(app, "prices.cjs"), CJS);

  dataDir = join(work, "data");
  server = await startServer(loadConfig({}, { dataDir, host: "127.0.0.1", port: 0, logLevel: "silent" }));
  const pricing = (...args: string[]) => cliOk(dataDir, ...args);
  keys = (await pricing("partner", "create", "--name", "Package Partner")) as unknown as typeof keys;
  await pricing("company", "create", "--id", COMPANY, "--name", "Package Co");
  await pricing("company", "map", "--partner", keys.partner_id, "--company", COMPANY);
  const products = join(dataDir, "products.csv");
  await writeFile(
    products,
    `product_id,name,currency,base_price\n${PRODUCTS.map((p) => `${p},${p},EUR,10`).join("\n")}\n`,
  );
  await pricing("data", "import", "--company", COMPANY, "--products", products);
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed @pricing/client", () => {
  it("ships built JavaScript with its types and lists no runtime dependency", async () => {
    const installed = join(work, "app/node_modules/@pricing/client");
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.exports).toEqual({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } });
    const types = await readFile(join(installed, "dist/index.d.ts"), "utf8");
    expect(types).toContain("PricingClient");
    expect(await readdir(installed)).not.toContain("src");
  });

  for (const file of ["prices.mjs", "prices.cjs"]) {
    it(`runs ${file} with plain Node against the server`, async () => {
      const { stdout, stderr } = await exec(process.execPath, [file], {
        cwd: join(work, "app"),
        env: {
          PATH: process.env.PATH ?? "",
          PRICING_BASE_URL: server.url,
          PRICING_ACCESS_KEY: keys.access_key,
          PRICING_SECRET_KEY: keys.secret_key,
          PRICING_COMPANY_ID: COMPANY,
        },
      });
      expect(stderr).toBe("");
      const result = JSON.parse(stdout);
      expect(result.source).toBe("rule");
      expect([...new Set(result.days)].sort()).toEqual(["2026-12-01", "2026-12-02", "2026-12-03"]);
      expect(result.days).toHaveLength(PRODUCTS.length * 3);
      expect(result.refused).toEqual({ typed: true, status: 401, code: "invalid_credentials" });
    });
  }
});
