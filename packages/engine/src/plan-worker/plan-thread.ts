import { parentPort, workerData } from "node:worker_threads";
import { loadCheckedPolicyArtifact } from "../artifact/policy-artifact.js";
import { policyActivity } from "../policy/policy-activity.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import { packedBuffers, packPlan } from "./packed-plan.js";
import { runPlanJob } from "./plan-job.js";
import {
  type PlanMessage,
  type ThreadData,
  type ThreadReply,
  toWireError,
  type WireArtifact,
} from "./thread-messages.js";

// Entry point of a planning thread: plans one job at a time (the pool sends the next when this one is answered),
// keeping the policies it deserialized, least recently used dropped (and disposed) first.
const port = parentPort;
if (port === null) throw new Error("plan-thread must run in a worker thread");
const { cacheSize } = workerData as ThreadData;
const policies = new Map<string, RlPolicy>();

/** The policy under the artifact's key, built from its bytes when they came along; undefined when neither. */
async function policyOf(artifact: WireArtifact): Promise<RlPolicy | undefined> {
  const cached = policies.get(artifact.key);
  if (cached !== undefined) {
    policies.delete(artifact.key);
    policies.set(artifact.key, cached);
    return cached;
  }
  if (artifact.manifest === undefined || artifact.weights === undefined) return undefined;
  const policy = await loadCheckedPolicyArtifact({ manifest: artifact.manifest, weights: artifact.weights });
  policies.set(artifact.key, policy);
  for (const [key, old] of policies) {
    if (policies.size <= cacheSize) break;
    policies.delete(key);
    old.dispose();
  }
  return policy;
}

async function plan(message: PlanMessage): Promise<ThreadReply> {
  const { id, job } = message;
  let policy: RlPolicy | null = null;
  if (job.active.artifact !== null) {
    const found = await policyOf(job.active.artifact);
    if (found === undefined) return { type: "missing", id, key: job.active.artifact.key };
    policy = found;
  }
  const rows = runPlanJob(job, policy);
  return { type: "done", id, plan: packPlan(rows) ?? rows, activity: policyActivity() };
}

port.on("message", (message: PlanMessage) => {
  plan(message).then(
    (reply) =>
      port.postMessage(
        reply,
        reply.type === "done" && !Array.isArray(reply.plan) ? packedBuffers(reply.plan) : [],
      ),
    (error: unknown) => port.postMessage({ type: "error", id: message.id, error: toWireError(error) }),
  );
});
