import { parentPort, workerData } from "node:worker_threads";
import { trainArtifact } from "@pricing/engine";
import { isApiError } from "@pricing/http-adapter";
import type { TrainingWorkerReply, TrainingWorkerRequest } from "./training-coordinator.js";
import { buildTrainingInput } from "./training-job.js";

// Entry point of a training thread: fitting the demand model, building the simulator, training, measuring and
// serializing all happen here, so the server's event loop only ever sees two messages.
const port = parentPort;
if (port === null) throw new Error("training-worker must run in a worker thread");
const request = workerData as TrainingWorkerRequest;
const send = (reply: TrainingWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);
let lastProgress = 0;
try {
  const input = buildTrainingInput(request.snapshot, request.settings);
  const artifact = await trainArtifact(input, {
    onProgress: (p) => {
      const now = Date.now();
      if (now - lastProgress < 200) return;
      lastProgress = now;
      send({ type: "progress", fraction: p.totalSteps > 0 ? p.step / p.totalSteps : 0 });
    },
  });
  const weights = artifact.weights;
  send({ type: "done", manifest: artifact.manifest, weights }, [weights.buffer as ArrayBuffer]);
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  send({ type: "error", code: isApiError(e) ? e.code : null, message: e.message });
}
