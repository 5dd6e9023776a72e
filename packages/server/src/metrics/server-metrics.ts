import type { ErrorCode } from "@pricing/http-adapter";
import type { ActiveSource } from "@pricing/policy-store";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { asApiError } from "../error-translator.js";
import { type ActiveSources, createActiveSources } from "./active-sources.js";

export type TrainingOutcome = "succeeded" | "failed" | "insufficient_history" | "aborted" | "conflict";
/** `issued`, or the error code the exchange was answered with (a closed list: bounded labels). */
export type TokenExchangeOutcome = "issued" | ErrorCode;
export type BatchCompanyOutcome = "created" | "exists" | "failed";

export interface ServerMetricsOptions {
  /** Trainings holding a company's slot right now (read at scrape time). */
  trainingsRunning: () => number;
  /** Every company id with its committed slots' source, to count companies not resolved since start. */
  committedSources: () => Promise<Map<string, ActiveSource>>;
}

/** The instrumentation hooks the routes, jobs and the policy resolver call; one registry per server context. */
export interface ServerMetrics {
  registry: Registry;
  /** One answered HTTP request: its route pattern (never the raw URL), method and status. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  tokenExchange(outcome: TokenExchangeOutcome): void;
  /**
   * Records one training: `run` receives `claimed`, to call with the slot's signal once the company's training
   * slot is held (the duration counts from there); a run that never claims it was refused (`conflict`).
   */
  training<T>(run: (claimed: (signal: AbortSignal) => void) => Promise<T>): Promise<T>;
  /** A nightly batch starts; the returned hooks record each company and the end (call `finished` in `finally`). */
  batchStarted(): { company(outcome: BatchCompanyOutcome): void; finished(): void };
  /** The source a company's resolution (or commit) just used. */
  sources: ActiveSources;
}

const TRAINING_BUCKETS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];
const BATCH_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];

function trainingOutcome(error: unknown, signal: AbortSignal | undefined): TrainingOutcome {
  if (signal?.aborted) return "aborted";
  const code = asApiError(error)?.code;
  if (code === "training_in_progress") return "conflict";
  if (code === "insufficient_history") return "insufficient_history";
  return "failed";
}

export function createServerMetrics(options: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  const registers = [registry];
  const http = new Histogram({
    name: "pricing_http_request_duration_seconds",
    help: "Time from receiving a request to sending its answer, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers,
  });
  const tokens = new Counter({
    name: "pricing_token_exchanges_total",
    help: "POST /auth/token answers: issued, or the error code (invalid_credentials, rate_limited, ...).",
    labelNames: ["outcome"] as const,
    registers,
  });
  const trainings = new Counter({
    name: "pricing_trainings_total",
    help: "Trainings by outcome: succeeded, failed, insufficient_history, aborted, conflict (slot held).",
    labelNames: ["outcome"] as const,
    registers,
  });
  const trainingSeconds = new Histogram({
    name: "pricing_training_duration_seconds",
    help: "Time a training held its company's slot (fit, train, save, commit), by outcome; conflicts excluded.",
    labelNames: ["outcome"] as const,
    buckets: TRAINING_BUCKETS,
    registers,
  });
  new Gauge({
    name: "pricing_trainings_running",
    help: "Trainings running in this process now.",
    registers,
    collect() {
      this.set(options.trainingsRunning());
    },
  });
  const batchCompanies = new Counter({
    name: "pricing_batch_companies_total",
    help: "Companies the nightly batch processed, by outcome: created (run written), exists (already there), failed.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const batchSeconds = new Histogram({
    name: "pricing_batch_duration_seconds",
    help: "Time one nightly batch took over all its companies.",
    buckets: BATCH_BUCKETS,
    registers,
  });
  const batchInProgress = new Gauge({
    name: "pricing_batch_in_progress",
    help: "Nightly batches running in this process now.",
    registers,
  });
  const batchLastFinished = new Gauge({
    name: "pricing_batch_last_finished_timestamp_seconds",
    help: "Unix time the last nightly batch of this process finished (alert when it grows older than a day).",
    registers,
  });
  const sources = createActiveSources(options.committedSources);
  new Gauge({
    name: "pricing_active_source_companies",
    help: "Companies by the source their last resolution used: approved, latest, or rule.",
    labelNames: ["source"] as const,
    registers,
    async collect() {
      const counts = await sources.counts();
      for (const [source, count] of Object.entries(counts)) this.set({ source }, count);
    },
  });

  for (const outcome of ["succeeded", "failed", "insufficient_history", "aborted", "conflict"] as const) {
    trainings.inc({ outcome }, 0);
  }
  for (const outcome of ["created", "exists", "failed"] as const) batchCompanies.inc({ outcome }, 0);
  for (const outcome of ["issued", "invalid_credentials", "rate_limited"] as const)
    tokens.inc({ outcome }, 0);

  return {
    registry,
    httpRequest(route, method, status, seconds) {
      http.observe({ route, method, status: String(status) }, seconds);
    },
    tokenExchange(outcome) {
      tokens.inc({ outcome });
    },
    async training(run) {
      let claimedAt: number | undefined;
      let signal: AbortSignal | undefined;
      const record = (outcome: TrainingOutcome) => {
        trainings.inc({ outcome });
        if (claimedAt !== undefined)
          trainingSeconds.observe({ outcome }, (performance.now() - claimedAt) / 1000);
      };
      try {
        const result = await run((held) => {
          claimedAt = performance.now();
          signal = held;
        });
        record("succeeded");
        return result;
      } catch (error) {
        record(trainingOutcome(error, signal));
        throw error;
      }
    },
    batchStarted() {
      const started = performance.now();
      batchInProgress.inc();
      return {
        company: (outcome) => batchCompanies.inc({ outcome }),
        finished() {
          batchInProgress.dec();
          batchSeconds.observe((performance.now() - started) / 1000);
          batchLastFinished.set(Date.now() / 1000);
        },
      };
    },
    sources,
  };
}
