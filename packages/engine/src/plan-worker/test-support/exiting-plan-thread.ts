import { parentPort } from "node:worker_threads";
import type { PlanMessage } from "../thread-messages.js";
import { EXIT_DATE, HANG_DATE } from "./plan-jobs.js";

// A planning thread that dies on request: a job starting on EXIT_DATE ends it with code 7 while it plans, as a crash
// would; one starting on HANG_DATE keeps it busy for ever, as a plan too large to wait for would. The real thread
// module first: the first listener starts the port, and a message reaches only the listeners there by then.
await import("../plan-thread.js");
parentPort?.on("message", (message: PlanMessage) => {
  if (message.job.startDate === EXIT_DATE) process.exit(7);
  if (message.job.startDate === HANG_DATE) for (;;);
});
