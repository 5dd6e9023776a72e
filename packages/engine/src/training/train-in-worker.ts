import type { PolicyArtifact } from "../artifact/policy-artifact.js";
import type { PolicyManifest } from "../artifact/policy-manifest.js";
import { EngineError } from "../base/engine-error.js";
import { callThread, type ThreadReply } from "../base/thread-call.js";
import { type CompanyTrainingData, checkTrainingHistory } from "../policy/company-training.js";
import type { TrainingProgress } from "../policy/fitted-q.js";

/** What the parent sends: plain, structured-cloneable data only. */
export interface WorkerRequest {
  readonly data: CompanyTrainingData;
  readonly progressEveryMs: number;
}

export type WorkerReply = ThreadReply<
  TrainingProgress,
  { readonly manifest: PolicyManifest; readonly weights: Uint8Array }
>;

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

/**
 * Trains a company's policy in a worker thread so the caller's event loop keeps serving: the demand fit, the
 * simulator, training, the safety check and serialization all run in the thread; resolves with the artifact
 * (manifest + weights). The cheap history checks run here first and throw `EngineError` synchronously, so the
 * common refusal starts no thread; a failure inside the thread rejects with a `EngineError` too.
 */
export function trainInWorker(
  data: CompanyTrainingData,
  options: TrainInWorkerOptions = {},
): Promise<PolicyArtifact> {
  checkTrainingHistory(data);
  const request: WorkerRequest = { data, progressEveryMs: options.progressEveryMs ?? 0 };
  return callThread<TrainingProgress, { manifest: PolicyManifest; weights: Uint8Array }>({
    entry: WORKER_ENTRY,
    request,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    failure: (error) => new EngineError(error.code as EngineError["code"], error.message),
    exited: (code) =>
      new EngineError("training_failed", `training worker exited with code ${code} before finishing`),
  }).then((result) => ({ manifest: result.manifest, weights: new Uint8Array(result.weights) }));
}
