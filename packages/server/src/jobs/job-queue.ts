import type { TrainJobData } from "./train-operation.js";

/** Where the jobs of this process go: an in-process runner (SQLite, the CLI) or pg-boss (PostgreSQL). */
export interface JobQueue {
  /** `pg-boss`: any worker process may run the job; `in-process`: this process runs it now. */
  readonly kind: "in-process" | "pg-boss";
  /**
   * Queues a training operation already recorded as `queued`. In-process, `settled` is the attempt itself, so a
   * caller waiting for the result need not poll the row.
   */
  enqueueTrain(data: TrainJobData): Promise<{ settled?: Promise<void> }>;
  /** Stops taking jobs and waits for the running ones (which `ctx.training.abortAll` ends first on shutdown). */
  close(): Promise<void>;
}
