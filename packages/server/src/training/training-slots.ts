import { ApiError } from "@pricing/http-adapter";

export interface TrainingSlotsOptions {
  /** Expected seconds of one training, for `Retry-After`. */
  expectedSeconds: number;
  /** Milliseconds clock. */
  now?: () => number;
}

interface Running {
  startedAt: number;
  controller: AbortController;
}

/**
 * One training per company at a time: the `train-company` job's singleton key. `exclusive` claims the company
 * synchronously, so two requests racing on the same company cannot both pass the check.
 */
export function createTrainingSlots(options: TrainingSlotsOptions) {
  const now = options.now ?? (() => Date.now());
  const running = new Map<string, Running>();
  /** Seconds the company's last training took: a better guess for `Retry-After` than the budget. */
  const lastSeconds = new Map<string, number>();
  const stopping = new AbortController();
  /** Trainings run in the background in this process (queued without a queue), until they settle. */
  const background = new Set<Promise<unknown>>();

  /** Seconds a training started at `startedAt` (ms) is expected to go on: its company's last duration, or the budget. */
  function retryAfterSince(companyId: string, startedAt: number): string {
    const expected = lastSeconds.get(companyId) ?? options.expectedSeconds;
    return String(Math.max(1, Math.ceil(expected - (now() - startedAt) / 1000)));
  }

  return {
    isTraining(companyId: string): boolean {
      return running.has(companyId);
    },

    /** Trainings holding a slot now. */
    running(): number {
      return running.size;
    },

    /**
     * Runs `work` while holding the company's training slot; a second caller gets 409 `training_in_progress`
     * with `Retry-After`. The slot is released whatever happens.
     */
    async exclusive<T>(companyId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const current = running.get(companyId);
      if (current) {
        throw new ApiError("training_in_progress", undefined, {
          headers: { "Retry-After": retryAfterSince(companyId, current.startedAt) },
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

    /** Aborted by `abortAll`: a request waiting for a training run elsewhere stops waiting on shutdown too. */
    stopping: stopping.signal as globalThis.AbortSignal,

    /** `Retry-After` for a training started at `startedAt` (ms) in any process. */
    retryAfterSince,

    /** Keeps `attempt` (which must not reject) until it settles, so that `settled` can wait for it. */
    track(attempt: Promise<unknown>): void {
      background.add(attempt);
      void attempt.finally(() => background.delete(attempt));
    },

    /** Resolves once every tracked attempt has settled (shutdown, after `abortAll`). */
    async settled(): Promise<void> {
      await Promise.allSettled([...background]);
    },

    /** Stops every running training (server shutdown). */
    abortAll(): void {
      if (!stopping.signal.aborted) {
        stopping.abort(
          new ApiError("unavailable", "The server is shutting down; retry the training shortly."),
        );
      }
      for (const entry of running.values())
        entry.controller.abort(
          new ApiError("unavailable", "The server is shutting down; retry the training shortly."),
        );
    },
  };
}

export type TrainingSlots = ReturnType<typeof createTrainingSlots>;
