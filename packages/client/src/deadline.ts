import { TimeoutError } from "./errors.js";

/** The client methods, one per API operation. */
export type OperationName =
  | "exchangeToken"
  | "getRecommendations"
  | "listRuns"
  | "computeRecommendations"
  | "trainModel"
  | "promoteModel"
  | "getModel"
  | "getModelHistory"
  | "rollbackModel"
  | "getOperation"
  | "createOverrides"
  | "listOverrides"
  | "deleteOverride";

/**
 * Default deadline of each operation, in milliseconds. Train and compute are synchronous and expensive on the
 * server (the spec quotes 30 s to 5 min for training), so they get far more than the reads.
 */
export const DEFAULT_TIMEOUTS_MS: Readonly<Record<OperationName, number>> = {
  exchangeToken: 30_000,
  getRecommendations: 30_000,
  listRuns: 30_000,
  computeRecommendations: 120_000,
  trainModel: 360_000,
  promoteModel: 30_000,
  getModel: 30_000,
  getModelHistory: 30_000,
  rollbackModel: 30_000,
  getOperation: 30_000,
  // With recompute=true the server also plans and persists a run, as a compute does.
  createOverrides: 120_000,
  listOverrides: 30_000,
  deleteOverride: 30_000,
};

export interface Deadline {
  /** Aborts with a `TimeoutError` when the deadline passes, or with the caller's reason when the caller aborts. */
  readonly signal: AbortSignal;
  /** Milliseconds left before the deadline (real time, like the timer itself). */
  remainingMs(): number;
  dispose(): void;
}

/** One deadline for a whole method call: token exchange, the request, a 401 retry and any Retry-After waits. */
export function startDeadline(operation: string, timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const controller = new AbortController();
  const endsAt = performance.now() + timeoutMs;
  const timer = setTimeout(() => controller.abort(new TimeoutError(operation, timeoutMs)), timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    remainingMs: () => Math.max(0, endsAt - performance.now()),
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

/**
 * Waits for a promise that other callers may share (the single-flight token exchange) while letting this caller
 * give up on its own signal without cancelling the shared work.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Default sleep for Retry-After waits: a real timer that an abort cuts short. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
