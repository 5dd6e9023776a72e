import { callThread, type ThreadReply } from "../base/thread-call.js";
import type { DemandCurve, DemandCurveInput } from "./demand-curve.js";

export type DemandCurveReply = ThreadReply<never, DemandCurve[]>;

const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./demand-curve-worker-bootstrap.mjs", import.meta.url)
  : new URL("./demand-curve-worker.js", import.meta.url);

/**
 * `demandCurves` in a fresh worker thread, so the caller's event loop keeps serving while the company's demand
 * model is fitted (the thread loads the fit alone, not TensorFlow). Aborting ends the thread at once.
 */
export function demandCurvesInWorker(
  input: DemandCurveInput,
  options: { signal?: AbortSignal } = {},
): Promise<DemandCurve[]> {
  return callThread<never, DemandCurve[]>({
    entry: WORKER_ENTRY,
    request: input,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    failure: (error) => new Error(`demand curves failed (${error.code}): ${error.message}`),
    exited: (code) => new Error(`demand-curve worker exited with code ${code} before finishing`),
  });
}
