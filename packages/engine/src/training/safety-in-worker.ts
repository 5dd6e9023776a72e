import { Worker } from "node:worker_threads";
import type { RlPolicyData } from "../policy/rl-policy.js";
import { SAFETY_Z, type SafetyProduct } from "../policy/safe-improvement.js";
import type { TrainingInput } from "../policy/training-input.js";

/** What the thread starts with: every product of the training input as the check needs it. */
export interface SafetyThreadData {
  readonly products: readonly SafetyProduct[];
  readonly z: number;
}

/** The parent's one request, once the policy is trained: its data and the products to evaluate it on. */
export interface SafetyRequest {
  readonly policy: RlPolicyData;
  readonly productIds: readonly string[];
}

type Margins<T> = readonly (readonly [string, T])[];

export type SafetyReply =
  | { readonly type: "rule"; readonly margins: Margins<number[] | null> }
  | { readonly type: "policy"; readonly margins: Margins<number[]> }
  | { readonly type: "error"; readonly message: string };

const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./safety-worker-bootstrap.mjs", import.meta.url)
  : new URL("./safety-worker.js", import.meta.url);

/** A running safety-check thread (see `startSafetyThread`). */
export interface SafetyThread {
  /** The rule's margins under every plausible model, by product id (`ruleMarginsUnderModels`). */
  readonly ruleMargins: Promise<Map<string, number[] | null>>;
  /** Sends the trained policy; resolves with its margins on `productIds` (`policyMarginsUnderModels`). */
  policyMargins(policy: RlPolicyData, productIds: readonly string[]): Promise<Map<string, number[]>>;
  /** Ends the thread (at once; a pending promise then rejects). */
  terminate(): void;
}

/**
 * Starts a second thread for the safety check's exact evaluations while the policy trains: the rule's margins
 * do not depend on the policy, so they are done by the time training ends, and the learned policy's are then
 * shared between the two threads. The margins are the ones `safePolicyImprovement` computes in one thread, bit
 * for bit (same code, same float32 rates, one evaluation order per policy).
 */
export function startSafetyThread(input: Pick<TrainingInput, "products">, z = SAFETY_Z): SafetyThread {
  const data: SafetyThreadData = {
    z,
    products: input.products.map((p) => ({
      setup: p.setup,
      // The simulator's float32 rates, which the learned policy's own problems are built from.
      rates: Float32Array.from(p.rates),
      ruleParams: p.ruleParams,
      demandUncertainty: p.demandUncertainty,
    })),
  };
  const worker = new Worker(WORKER_ENTRY, { workerData: data, execArgv: [] });
  let rule: { resolve: (m: Map<string, number[] | null>) => void; reject: (e: Error) => void } | null = null;
  let policy: { resolve: (m: Map<string, number[]>) => void; reject: (e: Error) => void } | null = null;
  const ruleMargins = new Promise<Map<string, number[] | null>>((resolve, reject) => {
    rule = { resolve, reject };
  });
  // A failure before the parent asks for the rule's margins must not surface as an unhandled rejection.
  ruleMargins.catch(() => undefined);
  const failAll = (error: Error): void => {
    rule?.reject(error);
    policy?.reject(error);
    rule = null;
    policy = null;
  };
  worker.on("message", (reply: SafetyReply) => {
    if (reply.type === "rule") {
      rule?.resolve(new Map(reply.margins));
      rule = null;
    } else if (reply.type === "policy") {
      policy?.resolve(new Map(reply.margins));
      policy = null;
    } else {
      failAll(new Error(`safety check failed: ${reply.message}`));
    }
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`safety-check thread exited with code ${code}`)));
  return {
    ruleMargins,
    policyMargins: (policyData, productIds) =>
      new Promise<Map<string, number[]>>((resolve, reject) => {
        policy = { resolve, reject };
        worker.postMessage({ policy: policyData, productIds } satisfies SafetyRequest);
      }),
    terminate: () => {
      void worker.terminate();
    },
  };
}
