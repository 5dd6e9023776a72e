import { Worker } from "node:worker_threads";
import type { PolicyArtifact } from "../artifact/policy-artifact.js";
import type { PolicyManifest } from "../artifact/policy-manifest.js";
import { type CompanyTrainingData, checkTrainingHistory, TrainingError } from "../policy/company-training.js";
import type { TrainingProgress } from "../policy/fitted-q.js";

/** What the parent sends: plain, structured-cloneable data only. */
export interface WorkerRequest {
  readonly data: CompanyTrainingData;
  readonly progressEveryMs: number;
}

export type WorkerReply =
  | { readonly type: "progress"; readonly progress: TrainingProgress }
  | { readonly type: "done"; readonly manifest: PolicyManifest; readonly weights: Uint8Array }
  | {
      readonly type: "error";
      readonly error: { readonly code: TrainingError["code"]; readonly message: string };
    };

export interface TrainInWorkerOptions {
  readonly onProgress?: (progress: TrainingProgress) => void;
  /**
   * At most one progress message per this many milliseconds (the last step is always reported), so a long
   * training does not flood the caller's event loop; default 0, every step.
   */
  readonly progressEveryMs?: number;
  /** Aborting terminates the thread at once; the promise rejects with the signal's reason (or an AbortError). */
  readonly signal?: AbortSignal;
}

/**
 * The thread's entry point: built JS runs `train-worker.js` as is; the TypeScript source (tests, tsx) goes through a
 * bootstrap that registers tsx in the thread, so the thread needs no loader flags from the parent.
 */
const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./train-worker-bootstrap.mjs", import.meta.url)
  : new URL("./train-worker.js", import.meta.url);

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("training aborted", "AbortError");
}

/**
 * Trains a company's policy in a worker thread so the caller's event loop keeps serving: the demand fit, the
 * simulator, training, the safety check and serialization all run in the thread; resolves with the artifact
 * (manifest + weights). The cheap history checks run here first and throw `TrainingError` synchronously, so the
 * common refusal starts no thread; a failure inside the thread rejects with a `TrainingError` too.
 */
export function trainInWorker(
  data: CompanyTrainingData,
  options: TrainInWorkerOptions = {},
): Promise<PolicyArtifact> {
  checkTrainingHistory(data);
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const request: WorkerRequest = {
    data,
    progressEveryMs: options.progressEveryMs ?? 0,
  };
  return new Promise<PolicyArtifact>((resolve, reject) => {
    const worker = new Worker(WORKER_ENTRY, {
      workerData: request,
      execArgv: [],
    });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = (): void => {
      if (signal) finish(() => reject(abortError(signal)));
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (reply: WorkerReply) => {
      if (reply.type === "progress") {
        if (!settled) options.onProgress?.(reply.progress);
      } else if (reply.type === "done") {
        finish(() => resolve({ manifest: reply.manifest, weights: new Uint8Array(reply.weights) }));
      } else {
        finish(() => reject(new TrainingError(reply.error.code, reply.error.message)));
      }
    });
    worker.on("error", (error) => finish(() => reject(error)));
    worker.on("exit", (code) => {
      finish(() =>
        reject(
          new TrainingError("training_failed", `training worker exited with code ${code} before finishing`),
        ),
      );
    });
  });
}
