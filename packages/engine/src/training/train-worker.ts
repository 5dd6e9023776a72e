import { parentPort, workerData } from "node:worker_threads";
import { trainArtifact } from "./train-artifact.js";
import type { WorkerReply, WorkerRequest } from "./train-in-worker.js";

// Entry point of the training thread: one request in `workerData`, progress and the result as messages.
const port = parentPort;
if (port === null) throw new Error("train-worker must run in a worker thread");
const request = workerData as WorkerRequest;
const send = (reply: WorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);
try {
  const artifact = await trainArtifact(request.input, {
    onProgress: (progress) => send({ type: "progress", progress }),
  });
  const weights = artifact.weights;
  send({ type: "done", manifest: artifact.manifest, weights }, [weights.buffer as ArrayBuffer]);
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  send({ type: "error", name: e.name, message: e.message });
}
