import { parentPort, workerData } from "node:worker_threads";
import { EngineError } from "../base/engine-error.js";
import { trainingInputFromHistory } from "../policy/company-training.js";
import type { TrainingProgress } from "../policy/fitted-q.js";
import { trainArtifact } from "./train-artifact.js";
import type { WorkerReply, WorkerRequest } from "./train-in-worker.js";

// Entry point of the training thread: one request in `workerData`, progress and the result as messages. Fitting
// the demand model, building the simulator, training, measuring and serializing all happen here.
const port = parentPort;
if (port === null) throw new Error("train-worker must run in a worker thread");
const request = workerData as WorkerRequest;
const send = (reply: WorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);
let lastSent = Number.NEGATIVE_INFINITY;
const reportProgress = (progress: TrainingProgress): void => {
  const now = Date.now();
  if (progress.step < progress.totalSteps && now - lastSent < request.progressEveryMs) return;
  lastSent = now;
  send({ type: "progress", progress });
};
try {
  const artifact = await trainArtifact(trainingInputFromHistory(request.data), {
    onProgress: reportProgress,
  });
  const weights = artifact.weights;
  send({ type: "done", result: { manifest: artifact.manifest, weights } }, [weights.buffer as ArrayBuffer]);
} catch (error) {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  send({
    type: "error",
    error:
      error instanceof EngineError
        ? { code: error.code, message: error.message }
        : { code: "training_failed", message },
  });
}
