import { parentPort, workerData } from "node:worker_threads";
import { initTfBackend } from "../backend/tf-backend.js";
import { RlPolicy } from "../policy/rl-policy.js";
import { policyMarginsUnderModels, ruleMarginsUnderModels } from "../policy/safe-improvement.js";
import type { SafetyReply, SafetyRequest, SafetyThreadData } from "./safety-in-worker.js";

// Entry point of the safety-check thread (see `startSafetyThread`): the rule's margins at once, then the learned
// policy's margins of the products the parent sends once training is done.
const port = parentPort;
if (port === null) throw new Error("safety-worker must run in a worker thread");
const data = workerData as SafetyThreadData;
const send = (reply: SafetyReply): void => port.postMessage(reply);
const fail = (error: unknown): void =>
  send({
    type: "error",
    message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
try {
  const rule = data.products.map((p) => [p.setup.productId, ruleMarginsUnderModels(p, data.z)] as const);
  send({ type: "rule", margins: rule });
} catch (error) {
  fail(error);
}
port.once("message", (request: SafetyRequest) => {
  void (async () => {
    try {
      await initTfBackend();
      const policy = RlPolicy.create(request.policy);
      try {
        const byId = new Map(data.products.map((p) => [p.setup.productId, p]));
        const margins = request.productIds.map(
          (id) =>
            [id, policyMarginsUnderModels(policy, id, byId.get(id)?.demandUncertainty, data.z)] as const,
        );
        send({ type: "policy", margins });
      } finally {
        policy.dispose();
      }
    } catch (error) {
      fail(error);
    }
    port.close();
  })();
});
