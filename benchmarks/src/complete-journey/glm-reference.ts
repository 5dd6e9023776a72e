import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CACHE_DIR } from "./dataset.js";

const SCRIPT = fileURLToPath(new URL("../../python/glm_reference.py", import.meta.url));
const REQUIREMENTS = fileURLToPath(new URL("../../python/requirements.txt", import.meta.url));
/** The benchmark's own Python environment (gitignored): statsmodels never enters the product. */
const VENV = join(CACHE_DIR, "..", "glm-venv");
const PYTHON = join(VENV, "bin", "python");

const figures = z.object({
  wape: z.number().nullable(),
  bias: z.number().nullable(),
  coverage_p10_p90: z.number().nullable(),
  mean_alpha: z.number().nullable(),
});
const ReferenceSchema = z.object({
  statsmodels: z.string(),
  results: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      refit: z.enum(["daily", "once"]),
      rows: z.number(),
      poisson: figures,
      negative_binomial: figures,
      seconds: z.number(),
    }),
  ),
});
export type GlmReference = z.infer<typeof ReferenceSchema>;
export type GlmResult = GlmReference["results"][number];

/**
 * A Python with statsmodels: the venv under .cache, made (python3 -m venv, pip install -r requirements.txt) on the
 * first run. Null, with the reason logged, where Python or the package registry is not there.
 */
function python(log: (line: string) => void): string | null {
  if (existsSync(PYTHON)) return PYTHON;
  try {
    log(`setting up ${VENV} with statsmodels (once)`);
    execFileSync("python3", ["-m", "venv", VENV], { stdio: "ignore" });
    execFileSync(PYTHON, ["-m", "pip", "install", "-q", "-r", REQUIREMENTS], { stdio: "ignore" });
    return PYTHON;
  } catch (error) {
    log(
      `no GLM reference: Python with statsmodels is not available (${(error as Error).message.split("\n")[0]})`,
    );
    return null;
  }
}

/**
 * Per-product Poisson and NB2 GLMs (statsmodels) with the engine's terms and promoted, fitted on the days the
 * backtest fits on (`benchmarks/python/glm_reference.py`); null where Python with statsmodels cannot be had.
 */
export function glmReference(
  dir: string,
  splits: readonly { from: string; to: string }[],
  refits: readonly string[],
  log: (line: string) => void,
): GlmReference | null {
  const bin = python(log);
  if (bin === null) return null;
  const result = spawnSync(
    bin,
    [
      SCRIPT,
      "--products",
      join(dir, "products.csv"),
      "--sales",
      join(dir, "sales.csv"),
      ...splits.flatMap((s) => ["--split", `${s.from}:${s.to}`]),
      "--refit",
      refits.join(","),
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) {
    log(`no GLM reference: ${SCRIPT} exited ${result.status}`);
    return null;
  }
  return ReferenceSchema.parse(JSON.parse(result.stdout));
}
