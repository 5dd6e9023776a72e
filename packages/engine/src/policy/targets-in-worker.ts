import { Worker } from "node:worker_threads";
import type { ProductDayRows } from "./bellman-targets.js";
import type { TrainingInput } from "./training-input.js";

export interface TargetsThreadData {
  readonly input: Pick<TrainingInput, "products">;
  readonly hidden: readonly number[];
}

/** One day's request: the network's current weights and the products (simulator index, stocks) to compute. */
export interface TargetsRequest {
  readonly day: number;
  readonly weights: readonly Float32Array[];
  readonly products: readonly { readonly index: number; readonly stocks: readonly number[] }[];
}

export type TargetsReply =
  | { readonly type: "rows"; readonly day: number; readonly rows: ProductDayRows[] }
  | { readonly type: "error"; readonly message: string };

const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./targets-worker-bootstrap.mjs", import.meta.url)
  : new URL("./targets-worker.js", import.meta.url);

/** A training's second thread (see `startTargetsThread`). */
export interface TargetsThread {
  /** `dayTargets` of these products there, under `weights`; one request at a time. */
  dayTargets(request: TargetsRequest): Promise<ProductDayRows[]>;
  terminate(): void;
}

/**
 * Starts a thread that computes part of each backward-induction day's replay rows (`dayTargets`): the rows of a
 * product depend on its model, its stocks and the network's weights only, so a day's products can be split
 * between two threads and the rows are the same bit for bit (same code, same weights, same backend).
 */
export function startTargetsThread(
  input: Pick<TrainingInput, "products">,
  hidden: readonly number[],
): TargetsThread {
  const data: TargetsThreadData = { input: { products: input.products }, hidden };
  const worker = new Worker(WORKER_ENTRY, { workerData: data, execArgv: [] });
  let pending: { resolve: (rows: ProductDayRows[]) => void; reject: (e: Error) => void } | null = null;
  const fail = (error: Error): void => {
    pending?.reject(error);
    pending = null;
  };
  worker.on("message", (reply: TargetsReply) => {
    if (reply.type === "rows") pending?.resolve(reply.rows);
    else fail(new Error(`training thread failed: ${reply.message}`));
    pending = null;
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`training thread exited with code ${code}`)));
  return {
    dayTargets: (request) =>
      new Promise<ProductDayRows[]>((resolve, reject) => {
        if (pending !== null) throw new Error("one request at a time");
        pending = { resolve, reject };
        worker.postMessage(request);
      }),
    terminate: () => {
      void worker.terminate();
    },
  };
}
