import { Worker } from "node:worker_threads";
import type { PolicyArtifact } from "../artifact/policy-artifact.js";
import type { PolicyManifest } from "../artifact/policy-manifest.js";
import type { TrainingProgress } from "../policy/fitted-q.js";
import { type TrainingInputInput, TrainingInputSchema } from "../policy/training-input.js";

/** What the parent sends: plain, structured-cloneable data only. */
export interface WorkerRequest {
  readonly input: TrainingInputInput;
}

export type WorkerReply =
  | { readonly type: "progress"; readonly progress: TrainingProgress }
  | { readonly type: "done"; readonly manifest: PolicyManifest; readonly weights: Uint8Array }
  | { readonly type: "error"; readonly name: string; readonly message: string };

export interface TrainInWorkerOptions {
  readonly onProgress?: (progress: TrainingProgress) => void;
  /** Aborting terminates the thread at once; the promise rejects with an AbortError. */
  readonly signal?: AbortSignal;
}

/** Raised in the caller's thread when training failed inside the worker. */
export class TrainingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrainingError";
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("training aborted", "AbortError");
}

/**
 * Trains a policy in a worker thread so the caller's event loop keeps serving; resolves with the artifact
 * (manifest + weights). The input is validated here first, so bad input fails fast without starting a thread.
 */
export function trainInWorker(
  input: TrainingInputInput,
  options: TrainInWorkerOptions = {},
): Promise<PolicyArtifact> {
  const parsed = TrainingInputSchema.parse(input);
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const request: WorkerRequest = { input: parsed };
  return new Promise<PolicyArtifact>((resolve, reject) => {
    // The bootstrap registers tsx itself, so the thread gets no loader flags from the parent.
    const worker = new Worker(new URL("./train-worker-bootstrap.mjs", import.meta.url), {
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
      finish(() => reject(abortError(signal!)));
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (reply: WorkerReply) => {
      if (reply.type === "progress") {
        if (!settled) options.onProgress?.(reply.progress);
      } else if (reply.type === "done") {
        finish(() => resolve({ manifest: reply.manifest, weights: new Uint8Array(reply.weights) }));
      } else {
        finish(() => reject(new TrainingError(`${reply.name}: ${reply.message}`)));
      }
    });
    worker.on("error", (error) => finish(() => reject(error)));
    worker.on("exit", (code) => {
      finish(() => reject(new TrainingError(`training worker exited with code ${code} before finishing`)));
    });
  });
}
