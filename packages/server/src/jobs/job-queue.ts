/**
 * The jobs the rest of the server queues, whatever queue runs them (`task-jobs.ts` builds it on a `TaskQueue`).
 * A context without one runs its trainings in place (every CLI command).
 */
export interface JobQueue {
  /** Trainings may run in another process, and a failed attempt is retried (pg-boss on PostgreSQL). */
  readonly shared: boolean;
  /**
   * Queues a training operation already recorded as `queued`. `settled` (in-process only) resolves when its attempt
   * has ended.
   */
  train(operationId: string): Promise<{ settled?: Promise<void> }>;
  /** Queues a whole nightly batch now (the schedule's job): it fans out one job per company. */
  nightlyBatch(): Promise<void>;
  /** Stops taking jobs and waits for the running ones (which `ctx.training.abortAll` ends first on shutdown). */
  close(): Promise<void>;
}
