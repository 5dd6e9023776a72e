import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The `pricing` bin as production runs it: the compiled dist/ on plain Node, no tsx loader and no source
// condition, so every `@pricing/*` import resolves to built JavaScript and training runs the built thread entry.

const exec = promisify(execFile);
const ROOT = process.cwd();
const BIN = join(ROOT, "packages/server/dist/cli.js");

let dataDir: string;

/** Plain Node on the built bin, with an environment that carries no loader flags. */
async function pricing(...args: string[]): Promise<unknown> {
  const { stdout } = await exec(process.execPath, [BIN, ...args, "--json", "--data-dir", dataDir], {
    env: { PATH: process.env.PATH ?? "", PRICING_TRAIN_SECONDS: "1" },
  });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  // Incremental: a no-op when `pnpm build` (part of `pnpm test`) already ran.
  await exec(join(ROOT, "node_modules/.bin/tsc"), ["-b", "packages/server"], { cwd: ROOT });
  dataDir = await mkdtemp(join(tmpdir(), "pricing-built-cli-"));
}, 180_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the built pricing bin", () => {
  it("prints its help", async () => {
    const { stdout } = await exec(process.execPath, [BIN, "--help"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(stdout).toContain("Usage: pricing");
    expect(stdout).toContain("demo");
  });

  it("seeds the demo, training each synthetic company in the built worker thread", async () => {
    const demo = (await pricing("demo", "--no-serve")) as {
      companies: string[];
      batch: { companies: { company_id: string; status: string }[] };
    };
    expect(demo.companies).toEqual(["demo-grocer", "demo-fashion", "complete-journey"]);
    expect(demo.batch.companies.map((c) => c.status)).toEqual(["created", "created", "created"]);
    for (const company of ["demo-grocer", "demo-fashion"]) {
      const model = (await pricing("model", "--company", company)) as { source: string; model_id: string };
      expect(model.source).toBe("approved");
      expect(model.model_id).toMatch(/^mdl_/);
    }
  });

  it("imports the shipped real-sales fixture and backtests it in the built backtest thread", async () => {
    const report = (await pricing(
      "backtest",
      "--company",
      "complete-journey",
      "--from",
      "2017-12-18",
      "--to",
      "2017-12-20",
    )) as { refit: string; summary: { rows: number } };
    expect(report.refit).toBe("daily");
    expect(report.summary.rows).toBe(3 * 30);
  });
});
