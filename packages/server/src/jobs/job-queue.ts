/** The `train` job's data: the operation row holds the rest. */
export interface TrainJobData {
  operationId: string;
}

/**
 * A queue that hands jobs to worker processes (pg-boss on PostgreSQL). A context without one runs its trainings
 * in its own process (the embedded mode and every CLI command).
 */
export interface JobQueue {
  /** Queues a training operation already recorded as `queued`; any worker may run it. */
  enqueueTrain(data: TrainJobData): Promise<void>;
  /** Queues a whole nightly batch now (the schedule's job): it fans out one job per company. */
  enqueueNightlyBatch(): Promise<void>;
  /** Stops taking jobs and waits for the running ones (which `ctx.training.abortAll` ends first on shutdown). */
  close(): Promise<void>;
}
