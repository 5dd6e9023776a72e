import { Worker } from "node:worker_threads";
import { daysBetween } from "../base/calendar.js";
import { EngineError } from "../base/engine-error.js";
import { threadExecArgv } from "../base/thread-call.js";
import type { PlannedPrice } from "../plan/company-plan.js";
import type { PolicyActivity } from "../policy/policy-activity.js";
import { createFairQueue } from "./fair-queue.js";
import { type PackedPlan, unpackPlan } from "./packed-plan.js";
import type { PlanJob } from "./plan-job.js";
import {
  fromWireError,
  type PlanMessage,
  type ThreadData,
  type ThreadReply,
  type WireJob,
} from "./thread-messages.js";

export interface PlanPoolOptions {
  /**
   * Planning threads at most; each plans one job at a time, further jobs wait: in order within a queue, taken
   * round-robin between queues (`PlanRequest.queue`).
   */
  readonly size: number;
  /** Deserialized policies each thread keeps (least recently used dropped first). Default 8. */
  readonly policyCacheSize?: number;
  /**
   * Prices (products x days) from which a cancelled running plan ends its thread rather than running to its end;
   * default {@link END_THREAD_FROM_PRICES}.
   */
  readonly endThreadFromPrices?: number;
}

/**
 * A plan cannot be interrupted short of ending its thread, and a fresh thread costs about 1.2 s of CPU before it
 * plans (the engine, tfjs and its wasm backend load again; measured on 2 busy cores), about what 4,000 prices cost
 * to plan (some 0.3 ms each). So a cancelled plan smaller than this runs to its end (its answer dropped), and a
 * larger one ends its thread.
 */
export const END_THREAD_FROM_PRICES = 4_000;

/** One planning thread as the pool last heard from it. */
export interface PlanThreadStats {
  readonly threadId: number;
  readonly planned: number;
  /** The thread's own policy counts, as of its last answer. */
  readonly activity: PolicyActivity;
}

/** How one plan is asked for. */
export interface PlanRequest {
  /**
   * Aborted, the plan is cancelled and rejects at once with `signal.reason`: a plan still waiting leaves the queue;
   * a running one of at least `endThreadFromPrices` prices ends its thread (replaced by a fresh one), a smaller one
   * runs to its end and its answer is dropped.
   */
  readonly signal?: AbortSignal;
  /**
   * Whose plan this is (the server names the partner). A free thread takes the oldest waiting plan of the next
   * queue in turn, so one queue's many large plans delay another's by at most one plan per thread, not by all of
   * them. Default: one shared queue.
   */
  readonly queue?: string;
}

export interface PlanPool {
  /**
   * `planPrices` of the job in a planning thread. Rejects with the engine's typed errors the thread threw
   * (`EngineError` with its code), else `EngineError`: `plan_failed`, `plan_thread_exited` when the
   * thread died mid-plan (it is replaced), `plan_pool_closed`; a cancelled plan with its signal's reason.
   */
  plan(job: PlanJob, request?: PlanRequest): Promise<PlannedPrice[]>;
  /**
   * `plan` without building the rows: the plan as the thread sent it, its columns (a caller that only stores the
   * plan reads them), or the rows themselves when they did not pack (`packPlan`).
   */
  planPacked(job: PlanJob, request?: PlanRequest): Promise<PackedPlan | PlannedPrice[]>;
  /** The live threads. */
  stats(): PlanThreadStats[];
  /** Plans waiting for a thread. */
  waiting(): number;
  /** Fails waiting and running plans with `plan_pool_closed` and ends every thread. Safe to call twice. */
  close(): Promise<void>;
}

/** Internal: where threads start (tests give a module that can be made to crash). */
export interface PlanPoolInternals {
  readonly entry?: URL;
}

const DEFAULT_POLICY_CACHE = 8;

/**
 * Built JS runs `plan-thread.js` as is; the TypeScript source (tests, tsx) goes through a bootstrap that registers
 * tsx in the thread, so the thread needs no loader flags from the parent.
 */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const DEFAULT_ENTRY = FROM_SOURCE
  ? new URL("./plan-thread.ts", import.meta.url)
  : new URL("./plan-thread.js", import.meta.url);
const BOOTSTRAP = new URL("./plan-thread-bootstrap.mjs", import.meta.url);

interface Task {
  readonly id: number;
  readonly job: PlanJob;
  readonly queue: string;
  /** Settle the plan's promise (and stop listening to its signal). */
  readonly resolve: (plan: PackedPlan | PlannedPrice[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Thread {
  readonly worker: Worker;
  readonly threadId: number;
  task: Task | null;
  planned: number;
  activity: PolicyActivity;
  /** Artifact keys sent with their bytes, in the thread's own least-recently-used order (a mirror of its cache). */
  readonly sent: Map<string, true>;
  /** The error event that preceded the exit, if any. */
  failure: Error | null;
}

/** The prices a job plans: products x days. */
function pricesOf(job: PlanJob): number {
  return job.products.length * (daysBetween(job.startDate, job.endDate) + 1);
}

/**
 * A pool of planning threads: `planPrices` (the policy's forward passes, the demand fit, the online learner) runs
 * off the caller's event loop. Threads start on demand, up to `size`; an idle thread does not keep the process
 * alive. Each thread keeps its own cache of deserialized policies by artifact key, so an artifact's bytes cross to
 * a thread once; a thread that lost one asks for the bytes again.
 */
export function createPlanPool(options: PlanPoolOptions): PlanPool {
  return startPlanPool(options, {});
}

export function startPlanPool(options: PlanPoolOptions, internals: PlanPoolInternals): PlanPool {
  if (!Number.isInteger(options.size) || options.size < 1) {
    throw new RangeError(`a plan pool needs at least one thread (size ${options.size})`);
  }
  const cacheSize = options.policyCacheSize ?? DEFAULT_POLICY_CACHE;
  const threads = new Set<Thread>();
  const waiting = createFairQueue<Task>();
  let nextId = 1;
  let closed: Promise<void> | null = null;

  const post = (thread: Thread, task: Task): void => {
    const { job } = task;
    let wire: WireJob = job as WireJob;
    const artifact = job.active.artifact;
    if (artifact !== null) {
      if (thread.sent.has(artifact.key)) {
        thread.sent.delete(artifact.key);
        thread.sent.set(artifact.key, true);
        wire = { ...job, active: { ...job.active, artifact: { key: artifact.key } } };
      } else {
        thread.sent.set(artifact.key, true);
        for (const key of thread.sent.keys()) {
          if (thread.sent.size <= cacheSize) break;
          thread.sent.delete(key);
        }
      }
    }
    const message: PlanMessage = { type: "plan", id: task.id, job: wire };
    try {
      thread.worker.postMessage(message);
    } catch (error) {
      // A job that does not clone (a function in a field) never reached the thread: fail it, free the thread.
      if (artifact !== null) thread.sent.delete(artifact.key);
      release(thread);
      task.reject(
        new EngineError(
          "plan_failed",
          `the plan job cannot be sent to a thread: ${(error as Error).message}`,
        ),
      );
    }
  };

  const release = (thread: Thread): void => {
    thread.task = null;
    // A running plan keeps the process alive until it is answered; an idle thread does not.
    thread.worker.unref();
  };

  const spawn = (): Thread => {
    const data: ThreadData & { entry?: string } = {
      cacheSize,
      ...(FROM_SOURCE && internals.entry !== undefined ? { entry: internals.entry.href } : {}),
    };
    const entry = FROM_SOURCE ? BOOTSTRAP : (internals.entry ?? DEFAULT_ENTRY);
    const worker = new Worker(entry, { workerData: data, execArgv: threadExecArgv() });
    const thread: Thread = {
      worker,
      threadId: worker.threadId,
      task: null,
      planned: 0,
      activity: { built: 0, forwardPasses: 0 },
      sent: new Map(),
      failure: null,
    };
    worker.on("message", (reply: ThreadReply) => {
      const task = thread.task;
      if (task === null || task.id !== reply.id) return;
      if (reply.type === "missing") {
        thread.sent.delete(reply.key);
        post(thread, task);
        if (thread.task === null) dispatch();
        return;
      }
      release(thread);
      if (reply.type === "done") {
        thread.planned++;
        thread.activity = reply.activity;
        task.resolve(reply.plan);
      } else {
        task.reject(fromWireError(reply.error));
      }
      dispatch();
    });
    worker.on("error", (error) => {
      thread.failure = error;
    });
    worker.on("exit", (code) => {
      threads.delete(thread);
      const task = thread.task;
      thread.task = null;
      if (task !== null) {
        task.reject(
          closed !== null
            ? new EngineError("plan_pool_closed", "the planning pool was closed while planning")
            : new EngineError(
                "plan_thread_exited",
                `planning thread ${thread.threadId} exited with code ${code} while planning` +
                  `${thread.failure === null ? "" : ` (${thread.failure.name}: ${thread.failure.message})`}; ` +
                  "a new thread takes the next plan",
              ),
        );
      }
      if (closed !== null) return;
      // A thread that had planned was healthy: replace it now, so the next plan finds its engine loaded. One that
      // never planned (it may fail to start at all) is replaced only when a plan needs a thread.
      if (thread.planned > 0 && threads.size < options.size) {
        const fresh = spawn();
        release(fresh);
        threads.add(fresh);
      }
      dispatch();
    });
    return thread;
  };

  const dispatch = (): void => {
    while (waiting.size() > 0) {
      let thread = [...threads].find((t) => t.task === null);
      if (thread === undefined) {
        if (threads.size >= options.size) return;
        thread = spawn();
        threads.add(thread);
      }
      const task = waiting.take() as Task;
      thread.task = task;
      thread.worker.ref();
      post(thread, task);
    }
  };

  const endThreadFrom = options.endThreadFromPrices ?? END_THREAD_FROM_PRICES;
  /** Drops a waiting task from the queue, or ends the thread running it if it is large (see `PlanRequest`). */
  const cancel = (task: Task, reason: unknown): void => {
    waiting.remove(task.queue, task);
    const thread = [...threads].find((t) => t.task === task);
    if (thread !== undefined && pricesOf(task.job) >= endThreadFrom) {
      // Out of the pool at once, so no plan is sent to it while it ends; its exit replaces it as a crash would.
      thread.task = null;
      threads.delete(thread);
      void thread.worker.terminate();
    }
    // A smaller running plan keeps its thread until it answers; its answer then settles nothing.
    task.reject(reason);
    dispatch();
  };

  const planPacked = (job: PlanJob, request: PlanRequest = {}): Promise<PackedPlan | PlannedPrice[]> => {
    if (closed !== null) {
      return Promise.reject(new EngineError("plan_pool_closed", "the planning pool is closed"));
    }
    const { signal } = request;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<PackedPlan | PlannedPrice[]>((resolve, reject) => {
      const onAbort = () => cancel(task, signal?.reason);
      const task: Task = {
        id: nextId++,
        job,
        queue: request.queue ?? "",
        resolve: (rows) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(rows);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waiting.add(task.queue, task);
      dispatch();
    });
  };

  return {
    async plan(job, request) {
      const plan = await planPacked(job, request);
      return Array.isArray(plan) ? plan : unpackPlan(plan);
    },
    planPacked,
    waiting: () => waiting.size(),
    stats: () =>
      [...threads].map((t) => ({ threadId: t.threadId, planned: t.planned, activity: t.activity })),
    close() {
      closed ??= (async () => {
        for (const task of waiting.drain()) {
          task.reject(new EngineError("plan_pool_closed", "the planning pool was closed before planning"));
        }
        await Promise.all([...threads].map((t) => t.worker.terminate()));
      })();
      return closed;
    },
  };
}
