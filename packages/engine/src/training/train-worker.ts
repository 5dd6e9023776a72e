import { parentPort, workerData } from "node:worker_threads";
import { EngineError } from "../base/engine-error.js";
import { trainingInputFromHistory } from "../policy/company-training.js";
import { type TrainingProgress, trainingThreads } from "../policy/fitted-q.js";
import { type SpawnedTargetsThread, spawnTargetsThread } from "../policy/targets-in-worker.js";
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
// The second thread starts loading TensorFlow now, while this one fits the demand model (the products without usable
// history only leave the fit: when too few remain for two threads, `trainArtifact` terminates it).
const spawned: SpawnedTargetsThread | null =
  trainingThreads({}, request.data.products.length) > 1 ? spawnTargetsThread() : null;
try {
  let input: ReturnType<typeof trainingInputFromHistory>;
  try {
    input = trainingInputFromHistory(request.data);
  } catch (error) {
    spawned?.terminate();
    throw error;
  }
  const artifact = await trainArtifact(input, { onProgress: reportProgress }, spawned);
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
