import type { JobQueue } from "./job-queue.js";
import type { TaskQueue } from "./task.js";
import { nightlyFanOutTask } from "./tasks/nightly-fan-out.js";
import { trainTask } from "./tasks/train.js";

/** The server's jobs on a task queue, pg-boss or in-process: the same tasks either way. */
export function jobsOn(queue: TaskQueue): JobQueue {
  return {
    shared: queue.shared,
    async train(operationId) {
      const { settled } = await queue.send(trainTask, { operationId });
      return settled === undefined ? {} : { settled };
    },
    async nightlyBatch() {
      await queue.send(nightlyFanOutTask, {});
    },
    close: () => queue.close(),
  };
}
