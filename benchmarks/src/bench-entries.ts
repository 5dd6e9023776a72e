/**
 * Every benchmark entry point, one line each: `pnpm bench` runs each at its quick size and `pnpm bench:smoke` at a
 * size of seconds. A new benchmark is a script in package.json and a line here (`bench-entries.test.ts` checks
 * that every `bench:*` script has one).
 */

/** What an entry needs beyond Node; an entry whose need is missing is skipped with the reason printed. */
export type Need = "pg" | "wrk" | "build";

export interface BenchEntry {
  /** The package.json script: `pnpm <name>`. */
  name: string;
  /** Its file in benchmarks/src. */
  script: string;
  /** Arguments of its run in `pnpm bench`. */
  quick: readonly string[];
  /** Arguments of its run in `pnpm bench:smoke`, a size of seconds; {@link JSON_OUT} where it writes its figures. */
  smoke: readonly string[];
  needs: readonly Need[];
}

/** Replaced by a file in a temporary directory, which the run writes its figures to (read by the smoke floors). */
export const JSON_OUT = "{json}";
/** Replaced by an empty temporary directory. */
export const TEMP_DIR = "{dir}";

// The longest smoke first, so that the smoke's parallel runs end together. `console:screenshots` is not a benchmark
// (it makes docs/console/); bench:console drives a Chromium by itself when there is one.
// biome-ignore format: one benchmark a line
export const BENCH_ENTRIES: readonly BenchEntry[] = [
  { name: "soak", script: "soak.ts", quick: ["--minutes", "1"], smoke: ["--minutes", "0.25", "--reads-per-second", "50", "--tokens-per-second", "1"], needs: ["wrk", "build"] },
  { name: "bench:scale", script: "bench-scale.ts", quick: ["--quick"], smoke: ["--quick", "--companies", "3", "--products", "5", "--days", "28", "--workers", "1", "--load-seconds", "1", "--train-seconds", "1"], needs: ["pg"] },
  // Timings are printed with their targets (the flood's /healthz p99, the fairness ratio), never failed on.
  { name: "bench:abuse", script: "bench-abuse.ts", quick: ["--quick"], smoke: ["--quick", "--sockets", "100", "--seconds", "3", "--products", "10"], needs: [] },
  { name: "bench:import", script: "bench-import.ts", quick: ["--megabytes", "10", "--idle-seconds", "3"], smoke: ["--megabytes", "0.3", "--products", "20", "--idle-seconds", "1", "--rate", "20"], needs: [] },
  // The smoke leaves out `GET /healthz during a training` (the training alone takes a minute on a busy machine).
  { name: "bench:http", script: "bench-http.ts", quick: ["--quick"], smoke: ["--duration", "1", "--skip-batch", "--only", "auth/token,GET bare,GET /v2/recommendations"], needs: [] },
  { name: "bench:event-loop", script: "bench-event-loop.ts", quick: ["--seconds", "3", "--train-seconds", "3"], smoke: ["--seconds", "1", "--products", "5", "--days", "14", "--train-seconds", "1"], needs: [] },
  { name: "bench:console", script: "bench-console.ts", quick: ["--runs", "5"], smoke: ["--products", "5", "--days", "60", "--runs", "2"], needs: [] },
  { name: "bench:train", script: "bench-train.ts", quick: ["--products", "30"], smoke: ["--products", "5", "--history-days", "60", "--horizon", "14", "--train-seconds", "1"], needs: [] },
  { name: "bench:inference", script: "bench-inference.ts", quick: ["--quick"], smoke: ["--quick", "--products", "10"], needs: [] },
  { name: "bench:real", script: "bench-real.ts", quick: ["--quick"], smoke: ["--quick", "--products", "5", "--json", JSON_OUT], needs: [] },
  { name: "bench:policy", script: "bench-policy.ts", quick: ["--quick"], smoke: ["--quick", "--only", "loose-stock", "--policy", "rule,dp_on_estimate,rl", "--json", JSON_OUT], needs: [] },
  { name: "bench:closed-loop", script: "bench-closed-loop.ts", quick: ["--quick"], smoke: ["--quick", "--suite", "default,real", "--only", "ferreira-a0.5-T100,cj-5569230", "--policy", "rule,closed_loop,ts_update", "--seeds", "2", "--json", JSON_OUT], needs: [] },
];
