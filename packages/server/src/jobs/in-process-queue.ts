import type { ServerContext } from "../context.js";
import type { JobQueue } from "./job-queue.js";
import { runTrainOperation } from "./train-operation.js";

/**
 * The embedded mode's queue (SQLite, and every CLI command): a job runs in this process at once, one attempt, no
 * retry (a process that dies takes its job with it; the operation's row then goes stale and the company's next
 * training fails it, see `services/train-model.ts`).
 */
export function createInProcessQueue(ctx: ServerContext): JobQueue {
  const running = new Set<Promise<void>>();
  return {
    kind: "in-process",
    async enqueueTrain({ operationId }) {
      const settled = runTrainOperation(ctx, operationId, { final: true }).catch((error: unknown) => {
        ctx.logger.error({ err: error, operation_id: operationId }, "training failed");
      });
      running.add(settled);
      void settled.finally(() => running.delete(settled));
      return { settled };
    },
    async close() {
      await Promise.allSettled([...running]);
    },
  };
}
