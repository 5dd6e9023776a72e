import { Worker } from "node:worker_threads";

/** What a one-shot thread posts: progress while it works, then its result or its error (plain data only). */
export type ThreadReply<P, R> =
  | { readonly type: "progress"; readonly progress: P }
  | { readonly type: "done"; readonly result: R }
  | { readonly type: "error"; readonly error: { readonly code: string; readonly message: string } };

export interface ThreadCall<P> {
  /** The thread's module (from source: a bootstrap that registers tsx in the thread; built: the JS itself). */
  readonly entry: URL;
  /** The request, structured-cloned into the thread as its `workerData`. */
  readonly request: unknown;
  readonly onProgress?: (progress: P) => void;
  /** Aborting terminates the thread at once; the promise rejects with the signal's reason (or an AbortError). */
  readonly signal?: AbortSignal;
  /** The error a failure the thread reported rejects with. */
  readonly failure: (error: { readonly code: string; readonly message: string }) => Error;
  /** The error when the thread exits without a reply (`code` is its exit code). */
  readonly exited: (code: number) => Error;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("aborted", "AbortError");
}

/**
 * The flags an engine thread starts with: none of the parent's loader flags (a thread loads its own bootstrap), but
 * its CPU-profile flags, so `node --cpu-prof` (bench:scale's and bench:http's `--profile`) covers the planning and
 * training threads too.
 */
export function threadExecArgv(): string[] {
  return process.execArgv.filter((flag) => flag.startsWith("--cpu-prof"));
}

/**
 * Runs one request in a fresh worker thread, so the caller's event loop keeps serving while the thread computes;
 * resolves with the thread's result.
 */
export function callThread<P, R>(call: ThreadCall<P>): Promise<R> {
  const { signal } = call;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<R>((resolve, reject) => {
    const worker = new Worker(call.entry, { workerData: call.request, execArgv: threadExecArgv() });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = (): void => {
      if (signal) finish(() => reject(abortError(signal)));
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (reply: ThreadReply<P, R>) => {
      if (reply.type === "progress") {
        if (!settled) call.onProgress?.(reply.progress);
      } else if (reply.type === "done") {
        finish(() => resolve(reply.result));
      } else {
        finish(() => reject(call.failure(reply.error)));
      }
    });
    worker.on("error", (error) => finish(() => reject(error)));
    worker.on("exit", (code) => finish(() => reject(call.exited(code))));
  });
}
