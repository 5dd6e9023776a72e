import { parentPort, workerData } from "node:worker_threads";
import { backtest } from "./backtest.js";
import type { BacktestReply, BacktestRequest } from "./backtest-in-worker.js";
import { BacktestError } from "./backtest-report.js";

// Entry point of a backtest thread: one request in `workerData`, a progress message per day, then the report.
const port = parentPort;
if (port === null) throw new Error("backtest-worker must run in a worker thread");
const send = (reply: BacktestReply): void => port.postMessage(reply);
try {
  const report = backtest({
    ...(workerData as BacktestRequest),
    onDay: (done, total) => send({ type: "progress", progress: { done, total } }),
  });
  send({ type: "done", result: report });
} catch (error) {
  send({
    type: "error",
    error:
      error instanceof BacktestError
        ? { code: error.code, message: error.message }
        : { code: "backtest_failed", message: error instanceof Error ? error.message : String(error) },
  });
}
