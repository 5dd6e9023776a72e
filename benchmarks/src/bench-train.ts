/**
 * Training benchmark: one company (default 100 products, 365 days of history) trained the way the server trains it,
 * and the same training split into its stages.
 *
 *   pnpm bench:train [--products N] [--history-days N] [--horizon N] [--stock tight|unlimited]
 *                    [--train-seconds S] [--only server,stages] [--steps-per-day N] [--final-steps N]
 *
 * `server`: the company seeded through the CSV import into a fresh data dir and trained by `trainModel` on the
 * server's default settings (only `--train-seconds` overrides the budget): wall seconds and the process's CPU
 * seconds (the training thread's included). `stages`: the same market's data trained in this thread, one stage at
 * a time, with the engine's exported steps: the demand fit and training input, the RL loop (its backward pass and
 * final phase apart; from 20 products on its targets shared with a second thread, as in the server), the safety
 * gate in this thread alone (the exact evaluations of both policies under every plausible model, which also give
 * the artifact's margins; the server's worker shares them with its second thread) and serialization. CPU seconds are this process's; say the load (`uptime`)
 * beside them, since wall time on a shared machine is noisy.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  type CompanyTrainingData,
  generateMarket,
  initTfBackend,
  safePolicyImprovement,
  serializeArtifact,
  TrainingInputSchema,
  trainingInputFromHistory,
  trainPolicy,
} from "@pricing/engine";
import {
  createServerContext,
  demoScenario,
  loadConfig,
  seedCompanyFromMarket,
  trainModel,
} from "@pricing/server";
import { markdownTable } from "./markdown-table.js";

interface Measured {
  readonly wall: number;
  readonly cpu: number;
}

/** Wall and CPU seconds (this process, every thread) of `run`. */
async function measure<T>(run: () => Promise<T> | T): Promise<{ value: T } & Measured> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await run();
  const cpu = process.cpuUsage(cpu0);
  return { value, wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
}

function scenarioOf(options: Options) {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
  return demoScenario({
    name: "bench-train",
    today,
    seed: 24,
    products: options.products,
    tightStock: options.stock === "tight",
    horizon: options.horizon,
    historyDays: options.historyDays,
  });
}

interface Options {
  readonly products: number;
  readonly historyDays: number;
  readonly horizon: number;
  readonly stock: "tight" | "unlimited";
  readonly trainSeconds: number | undefined;
  /** Stages only: gradient steps other than the engine's defaults (to profile the other stages quickly). */
  readonly steps: { stepsPerDay?: number; finalSteps?: number };
}

async function serverPath(options: Options): Promise<string[][]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-train-"));
  const ctx = await createServerContext(
    loadConfig(
      {},
      {
        dataDir,
        logLevel: "silent",
        ...(options.trainSeconds === undefined ? {} : { pricing: { trainSeconds: options.trainSeconds } }),
      },
    ),
  );
  try {
    const seeded = await measure(() =>
      seedCompanyFromMarket(ctx, {
        companyId: "bench-train",
        name: "Bench train",
        timezone: "UTC",
        currency: "EUR",
        dir: path.join(dataDir, "csv"),
        scenario: scenarioOf(options),
      }),
    );
    const trained = await measure(() => trainModel(ctx, { company_id: "bench-train", auto_approve: false }));
    const m = trained.value.metrics;
    const steps = m.gradientSteps === undefined ? "" : `, ${m.gradientSteps} steps`;
    return [
      [
        "(setup) seed: CSV import",
        `${seeded.value.salesRows} rows`,
        seeded.wall.toFixed(2),
        seeded.cpu.toFixed(2),
      ],
      [
        "POST /v2/model/train path (trainModel)",
        `uplift ${m.upliftPct?.toFixed(2) ?? "null"} %${steps}`,
        trained.wall.toFixed(2),
        trained.cpu.toFixed(2),
      ],
    ];
  } finally {
    await ctx.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function stages(options: Options): Promise<string[][]> {
  const rows: string[][] = [];
  const backend = await initTfBackend();
  const market = await measure(() => generateMarket(scenarioOf(options)));
  const data: CompanyTrainingData = {
    companyId: "bench-train",
    products: market.value.products.map((p) => ({ setup: p.setup, basePrice: p.referencePrice })),
    history: market.value.history,
    minHistoryDays: 28,
    config: {
      ...(options.trainSeconds === undefined ? {} : { maxSeconds: options.trainSeconds }),
      ...options.steps,
    },
  };
  rows.push(["(setup) market", `${data.history.length} rows`, market.wall.toFixed(2), market.cpu.toFixed(2)]);
  const fit = await measure(() => TrainingInputSchema.parse(trainingInputFromHistory(data)));
  const input = fit.value;
  rows.push([
    "demand fit + training input",
    `${input.products.length} products`,
    fit.wall.toFixed(2),
    fit.cpu.toFixed(2),
  ]);
  let backwardEnd: { wall: number; cpu: number } | null = null;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const trained = await measure(() =>
    trainPolicy(input, {
      onProgress: (p) => {
        if (p.phase === "final" && backwardEnd === null) {
          const c = process.cpuUsage(cpu0);
          backwardEnd = { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
        }
      },
    }),
  );
  const policy = trained.value;
  const t = policy.data.training;
  const split = backwardEnd as { wall: number; cpu: number } | null;
  rows.push([
    "RL loop (simulator + backward + final)",
    `${t.gradientSteps} steps, ${t.sampledStates} states, ${backend.name}`,
    trained.wall.toFixed(2),
    trained.cpu.toFixed(2),
  ]);
  if (split !== null) {
    rows.push(["  of which simulator + backward pass", "", split.wall.toFixed(2), split.cpu.toFixed(2)]);
    rows.push([
      "  of which final phase",
      "",
      (trained.wall - split.wall).toFixed(2),
      (trained.cpu - split.cpu).toFixed(2),
    ]);
  }
  const safe = await measure(() => safePolicyImprovement(policy, input));
  const report = safe.value.report;
  rows.push([
    "safety gate (+ margins under the fit)",
    `${report.productsKeptRl}/${report.products.length} kept RL`,
    safe.wall.toFixed(2),
    safe.cpu.toFixed(2),
  ]);
  const artifact = await measure(() =>
    serializeArtifact(safe.value.policy, { margins: safe.value.margins, safety: report }),
  );
  rows.push([
    "artifact (serialize)",
    `${artifact.value.weights.length} bytes`,
    artifact.wall.toFixed(2),
    artifact.cpu.toFixed(2),
  ]);
  const total = [fit, trained, safe, artifact];
  rows.push([
    "total (fit .. artifact)",
    "",
    total.reduce((s, m) => s + m.wall, 0).toFixed(2),
    total.reduce((s, m) => s + m.cpu, 0).toFixed(2),
  ]);
  safe.value.policy.dispose();
  policy.dispose();
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      products: { type: "string", default: "100" },
      "history-days": { type: "string", default: "365" },
      horizon: { type: "string", default: "60" },
      stock: { type: "string", default: "tight" },
      "train-seconds": { type: "string" },
      only: { type: "string", default: "server,stages" },
      "steps-per-day": { type: "string" },
      "final-steps": { type: "string" },
    },
  });
  const stock = values.stock === "unlimited" ? "unlimited" : "tight";
  const options: Options = {
    products: Number(values.products),
    historyDays: Number(values["history-days"]),
    horizon: Number(values.horizon),
    stock,
    trainSeconds: values["train-seconds"] === undefined ? undefined : Number(values["train-seconds"]),
    steps: {
      ...(values["steps-per-day"] === undefined ? {} : { stepsPerDay: Number(values["steps-per-day"]) }),
      ...(values["final-steps"] === undefined ? {} : { finalSteps: Number(values["final-steps"]) }),
    },
  };
  const only = (values.only ?? "").split(",");
  console.log(
    `company: ${options.products} products, ${options.historyDays} days of history, ${options.horizon}-day ` +
      `season, ${stock} stock; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const header = ["stage", "what", "wall s", "CPU s"];
  if (only.includes("server")) {
    console.log("\nServer path (default settings):\n");
    console.log(markdownTable(header, await serverPath(options)));
  }
  if (only.includes("stages")) {
    console.log("\nStages, in this thread:\n");
    console.log(markdownTable(header, await stages(options)));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
