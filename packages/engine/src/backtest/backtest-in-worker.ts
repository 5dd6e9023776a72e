import { callThread, type ThreadReply } from "../base/thread-call.js";
import { type BacktestInput, checkBacktestRange } from "./backtest.js";
import { BacktestError, type BacktestErrorCode, type BacktestReport } from "./backtest-report.js";

/** Days predicted so far and in all. */
export interface BacktestProgress {
  readonly done: number;
  readonly total: number;
}

/** What the parent sends: the input without its callback. */
export type BacktestRequest = Omit<BacktestInput, "onDay">;

export type BacktestReply = ThreadReply<BacktestProgress, BacktestReport>;

export interface BacktestInWorkerOptions {
  readonly onProgress?: (progress: BacktestProgress) => void;
  /** Aborting terminates the thread at once; the promise rejects with the signal's reason (or an AbortError). */
  readonly signal?: AbortSignal;
}

const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./backtest-worker-bootstrap.mjs", import.meta.url)
  : new URL("./backtest-worker.js", import.meta.url);

/**
 * `backtest` in a worker thread, so the caller's event loop keeps serving (a daily refit over months fits the
 * demand model once per day). The range checks run here first and throw `BacktestError` synchronously, so a bad
 * range starts no thread; a failure inside the thread rejects with a `BacktestError` too.
 */
export function backtestInWorker(
  input: BacktestRequest,
  options: BacktestInWorkerOptions = {},
): Promise<BacktestReport> {
  checkBacktestRange(input);
  return callThread<BacktestProgress, BacktestReport>({
    entry: WORKER_ENTRY,
    request: input,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    failure: (error) => new BacktestError(error.code as BacktestErrorCode, error.message),
    exited: (code) => new Error(`backtest worker exited with code ${code} before finishing`),
  });
}
