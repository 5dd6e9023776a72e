import { Worker } from "node:worker_threads";
import type { PolicyArtifact, PolicyManifest } from "@pricing/engine";
import { ApiError, type ErrorCode } from "@pricing/http-adapter";
import type { PricingSettings } from "../config.js";
import type { CompanySnapshot } from "./company-snapshot.js";

/** What a training thread receives: plain, structured-cloneable data. */
export interface TrainingWorkerRequest {
  snapshot: CompanySnapshot;
  settings: PricingSettings;
}

export type TrainingWorkerReply =
  | { type: "progress"; fraction: number }
  | { type: "done"; manifest: PolicyManifest; weights: Uint8Array }
  | { type: "error"; code: ErrorCode | null; message: string };

export interface TrainingCoordinatorOptions {
  /** Expected seconds of one training, for `Retry-After`. */
  expectedSeconds: number;
  /** Milliseconds clock. */
  now?: () => number;
}

interface Running {
  startedAt: number;
  controller: AbortController;
}

/** Trains in a worker thread; aborting the signal terminates the thread and rejects. */
function trainInThread(
  request: TrainingWorkerRequest,
  signal: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<PolicyArtifact> {
  return new Promise((resolve, reject) => {
    // The bootstrap registers tsx itself, so the thread needs no loader flags from the parent.
    const worker = new Worker(new URL("./training-worker-bootstrap.mjs", import.meta.url), {
      workerData: request,
      execArgv: [],
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      finish(() => reject(signal.reason instanceof Error ? signal.reason : new Error("training aborted")));
      void worker.terminate();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (reply: TrainingWorkerReply) => {
      if (reply.type === "progress") {
        if (!settled) onProgress?.(reply.fraction);
      } else if (reply.type === "done") {
        finish(() => resolve({ manifest: reply.manifest, weights: new Uint8Array(reply.weights) }));
      } else if (reply.code !== null) {
        finish(() => reject(new ApiError(reply.code!, reply.message)));
      } else {
        finish(() => reject(new Error(`training failed: ${reply.message}`)));
      }
    });
    worker.on("error", (error) => finish(() => reject(error)));
    worker.on("exit", (code) => finish(() => reject(new Error(`training thread exited with code ${code}`))));
  });
}

/**
 * One training per company at a time, each in a worker thread so the event loop keeps serving. `exclusive`
 * claims the company synchronously, so two requests racing on the same company cannot both pass the check.
 */
export function createTrainingCoordinator(options: TrainingCoordinatorOptions) {
  const now = options.now ?? (() => Date.now());
  const running = new Map<string, Running>();
  /** Seconds the company's last training took: a better guess for `Retry-After` than the budget. */
  const lastSeconds = new Map<string, number>();

  function retryAfter(companyId: string, entry: Running): string {
    const expected = lastSeconds.get(companyId) ?? options.expectedSeconds;
    const left = expected - (now() - entry.startedAt) / 1000;
    return String(Math.max(1, Math.ceil(left)));
  }

  return {
    isTraining(companyId: string): boolean {
      return running.has(companyId);
    },

    /**
     * Runs `work` while holding the company's training slot; a second caller gets 409 `training_in_progress`
     * with `Retry-After`. The slot is released whatever happens.
     */
    async exclusive<T>(companyId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const current = running.get(companyId);
      if (current) {
        throw new ApiError("training_in_progress", undefined, {
          headers: { "Retry-After": retryAfter(companyId, current) },
        });
      }
      const entry: Running = { startedAt: now(), controller: new AbortController() };
      running.set(companyId, entry);
      try {
        const result = await work(entry.controller.signal);
        lastSeconds.set(companyId, (now() - entry.startedAt) / 1000);
        return result;
      } finally {
        running.delete(companyId);
      }
    },

    train: trainInThread,

    /** Stops every running training (server shutdown). */
    abortAll(): void {
      for (const entry of running.values())
        entry.controller.abort(
          new ApiError("unavailable", "The server is shutting down; retry the training shortly."),
        );
    },
  };
}

export type TrainingCoordinator = ReturnType<typeof createTrainingCoordinator>;
