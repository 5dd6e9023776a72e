import { Worker } from "node:worker_threads";
import { threadExecArgv } from "../base/thread-call.js";
import type { ProductDayRows } from "./bellman-targets.js";
import type { BatchJob, BatchPipeBuffers } from "./replay-batches.js";
import type { RlPolicyData } from "./rl-policy.js";
import type { PolicyMargins } from "./safe-improvement.js";
import type { TrainingInput } from "./training-input.js";

export interface TargetsThreadData {
  readonly input: Pick<TrainingInput, "products">;
  readonly hidden: readonly number[];
  /** With a z, the thread also evaluates the rule for the safety check (`ruleMarginsUnderModels`) when idle. */
  readonly safetyZ: number | null;
}

/** One day's request: the network's current weights and the products (simulator index, stocks) to compute. */
export interface DayRequest {
  readonly type: "day";
  readonly day: number;
  readonly weights: readonly Float32Array[];
  readonly products: readonly { readonly index: number; readonly stocks: readonly number[] }[];
}

/**
 * The trained policy and the products to evaluate it on for the safety check (`policyMarginsUnderModels`): the
 * thread takes `productIds[k]` for each k it draws from the shared counter `next` (`Atomics.add`), as the caller
 * does, so that both finish together whatever each product costs.
 */
export interface PolicyRequest {
  readonly type: "policy";
  readonly policy: RlPolicyData;
  readonly productIds: readonly string[];
  readonly next: Int32Array;
}

/** The training's input, sent once the thread is spawned (see `spawnTargetsThread`). */
export interface InitRequest {
  readonly type: "init";
  readonly data: TargetsThreadData;
}

/** The training's replay memory and batch pipe (shared memory), once the training has created them. */
export interface ShareBatchesRequest {
  readonly type: "share-batches";
  readonly buffers: BatchPipeBuffers;
}

/** Gather these steps' minibatches ahead of the training's thread (`gatherJob`). */
export interface BatchesRequest {
  readonly type: "batches";
  readonly job: BatchJob;
}

export type TargetsRequest = InitRequest | DayRequest | PolicyRequest | ShareBatchesRequest | BatchesRequest;

type Margins<T> = readonly (readonly [string, T])[];

export type TargetsReply =
  | { readonly type: "ready" }
  | {
      readonly type: "rows";
      readonly day: number;
      readonly rows: ProductDayRows[];
      /** When the thread had them (`epochMs`), for the share of the next days (see `TargetSplit`). */
      readonly finishedAt: number;
    }
  | { readonly type: "rule"; readonly margins: Margins<number[] | null> }
  | { readonly type: "policy"; readonly margins: Margins<PolicyMargins> }
  | { readonly type: "error"; readonly message: string };

/**
 * The second thread's share of each backward day's targets. The training's own thread also makes the day's gradient
 * steps, about a third of the targets' time at 30 steps a day (bench:train's 100 products: some 70 of 240 CPU ms a
 * day), so the two finish a day together near two thirds there; a thread that also evaluates the rule for the
 * safety check (about 40 % of the targets' time over the backward pass) takes half.
 */
const TARGET_SHARE = 0.7;
const TARGET_SHARE_WITH_SAFETY = 0.5;

const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./targets-worker-bootstrap.mjs", import.meta.url)
  : new URL("./targets-worker.js", import.meta.url);

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/** A day's rows from the second thread, and when it had them. */
export interface DayRows {
  readonly rows: ProductDayRows[];
  readonly finishedAt: number;
}

/** Milliseconds since the epoch, comparable between threads (each has its own `performance.timeOrigin`). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A training's second thread (see `startTargetsThread`). */
export interface TargetsThread {
  /**
   * Whether the thread has started (its simulator and TensorFlow loaded) and not failed: until then the training's
   * own thread computes every target.
   */
  readonly ready: boolean;
  /** Resolves once `ready`, or once the thread has failed (then `ready` stays false and requests reject). */
  readonly started: Promise<void>;
  /**
   * Share of each backward day's products whose targets this thread computes at first (see `startTargetsThread`);
   * the training then moves it by how long each thread took (`TargetSplit`).
   */
  readonly targetShare: number;
  /** `dayTargets` of these products there, under `weights`, and when they were done (`epochMs`); one day at a time. */
  dayTargets(request: Omit<DayRequest, "type">): Promise<DayRows>;
  /** Hands the thread the training's batch pipe (`BatchPipe`); once, before `gatherBatches`. */
  shareBatches(buffers: BatchPipeBuffers): void;
  /**
   * Asks the thread to gather a job's minibatches ahead of the training's (which takes back any it has not started):
   * gradient steps leave it idle otherwise.
   */
  gatherBatches(job: BatchJob): void;
  /** The rule's safety-check margins by product id; only when started with a z. */
  readonly ruleMargins: Promise<Map<string, number[] | null>>;
  /**
   * The trained policy's safety-check margins, by product id, on the products of `productIds` whose index it draws
   * from `next` (a counter in shared memory the caller draws from too).
   */
  policyMargins(
    policy: RlPolicyData,
    productIds: readonly string[],
    next: Int32Array,
  ): Promise<Map<string, PolicyMargins>>;
  terminate(): void;
}

/** A second thread spawned before its training's input exists: it loads TensorFlow meanwhile. */
export interface SpawnedTargetsThread {
  /** Hands the thread its training's input; once only. */
  start(
    input: Pick<TrainingInput, "products">,
    hidden: readonly number[],
    safetyZ?: number | null,
  ): TargetsThread;
  terminate(): void;
}

/**
 * Spawns a training's second thread before the demand fit and the training input: its start-up (about 1 s loading
 * tfjs wasm) then overlaps them instead of the first backward days, which the first thread computes alone until
 * the second is ready. `start` gives it the input (see `startTargetsThread`).
 */
export function spawnTargetsThread(): SpawnedTargetsThread {
  const worker = new Worker(WORKER_ENTRY, { execArgv: threadExecArgv() });
  // Replies that arrive before `start` (the thread's "ready", a failure) are kept for the started thread.
  const early: TargetsReply[] = [];
  let onReply: (reply: TargetsReply) => void = (reply) => early.push(reply);
  let onFailure: (error: Error) => void = () => undefined;
  let exitedEarly: Error | null = null;
  worker.on("message", (reply: TargetsReply) => onReply(reply));
  worker.on("error", (error) => {
    exitedEarly ??= error;
    onFailure(error);
  });
  worker.on("exit", (code) => {
    const error = new Error(`training thread exited with code ${code}`);
    exitedEarly ??= error;
    onFailure(error);
  });
  let started = false;
  return {
    start: (input, hidden, safetyZ = null) => {
      if (started) throw new Error("the training thread was started already");
      started = true;
      const data: TargetsThreadData = { input: { products: input.products }, hidden, safetyZ };
      worker.postMessage({ type: "init", data } satisfies InitRequest);
      const thread = targetsThreadOf(worker, safetyZ);
      onReply = thread.receive;
      onFailure = thread.fail;
      for (const reply of early.splice(0)) thread.receive(reply);
      if (exitedEarly !== null) thread.fail(exitedEarly);
      return thread.api;
    },
    terminate: () => {
      void worker.terminate();
    },
  };
}

/**
 * Starts a training's second thread. It computes part of each backward-induction day's replay rows
 * (`dayTargets`): the rows of a product depend on its model, its stocks and the network's weights only, so a day's
 * products can be split between two threads and the rows are the same bit for bit (same code, same weights, same
 * backend). With `safetyZ`, between days it evaluates the rule under the plausible demand models, which does not
 * depend on the policy, and once the policy is trained part of its evaluations: the margins `safePolicyImprovement`
 * computes in one thread, bit for bit.
 */
export function startTargetsThread(
  input: Pick<TrainingInput, "products">,
  hidden: readonly number[],
  safetyZ: number | null = null,
): TargetsThread {
  return spawnTargetsThread().start(input, hidden, safetyZ);
}

/** The parent's side of a started thread: its replies and failures routed to the waiting requests. */
function targetsThreadOf(
  worker: Worker,
  safetyZ: number | null,
): { api: TargetsThread; receive: (reply: TargetsReply) => void; fail: (error: Error) => void } {
  let day: Waiter<DayRows> | null = null;
  let rule: Waiter<Map<string, number[] | null>> | null = null;
  let policy: Waiter<Map<string, PolicyMargins>> | null = null;
  const ruleMargins = new Promise<Map<string, number[] | null>>((resolve, reject) => {
    rule = { resolve, reject };
  });
  // A failure before anyone asks for the rule's margins must not surface as an unhandled rejection.
  ruleMargins.catch(() => undefined);
  let ready = false;
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  let failed: Error | null = null;
  const failAll = (error: Error): void => {
    failed ??= error;
    ready = false;
    markStarted();
    for (const waiter of [day, rule, policy]) waiter?.reject(error);
    day = null;
    rule = null;
    policy = null;
  };
  const receive = (reply: TargetsReply): void => {
    if (reply.type === "ready") {
      ready = failed === null;
      markStarted();
    } else if (reply.type === "rows") {
      day?.resolve({ rows: reply.rows, finishedAt: reply.finishedAt });
      day = null;
    } else if (reply.type === "rule") {
      rule?.resolve(new Map(reply.margins));
      rule = null;
    } else if (reply.type === "policy") {
      policy?.resolve(new Map(reply.margins));
      policy = null;
    } else {
      failAll(new Error(`training thread failed: ${reply.message}`));
    }
  };
  const send = (request: TargetsRequest): void => worker.postMessage(request);
  const api: TargetsThread = {
    get ready() {
      return ready;
    },
    started,
    targetShare: safetyZ === null ? TARGET_SHARE : TARGET_SHARE_WITH_SAFETY,
    dayTargets: (request) =>
      new Promise<DayRows>((resolve, reject) => {
        if (failed !== null) return reject(failed);
        day = { resolve, reject };
        send({ type: "day", ...request });
      }),
    shareBatches: (buffers) => {
      if (failed === null) send({ type: "share-batches", buffers });
    },
    gatherBatches: (job) => {
      if (failed === null) send({ type: "batches", job });
    },
    ruleMargins,
    policyMargins: (policyData, productIds, next) =>
      new Promise<Map<string, PolicyMargins>>((resolve, reject) => {
        if (failed !== null) return reject(failed);
        policy = { resolve, reject };
        send({ type: "policy", policy: policyData, productIds, next });
      }),
    terminate: () => {
      void worker.terminate();
    },
  };
  return { api, receive, fail: failAll };
}
