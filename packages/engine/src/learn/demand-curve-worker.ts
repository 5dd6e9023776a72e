import { parentPort, workerData } from "node:worker_threads";
import { type DemandCurveInput, demandCurves } from "./demand-curve.js";
import type { DemandCurveReply } from "./demand-curve-in-worker.js";

// Entry point of a demand-curve thread: one request in `workerData`, then the curves (or the error).
const port = parentPort;
if (port === null) throw new Error("demand-curve-worker must run in a worker thread");
const send = (reply: DemandCurveReply): void => port.postMessage(reply);
try {
  send({ type: "done", result: demandCurves(workerData as DemandCurveInput) });
} catch (error) {
  send({
    type: "error",
    error: { code: "demand_curve_failed", message: error instanceof Error ? error.message : String(error) },
  });
}
