import type { Task } from "./task.js";
import { nightlyCompanyTask } from "./tasks/nightly-company.js";
import { nightlyFanOutTask } from "./tasks/nightly-fan-out.js";
import { trainTask } from "./tasks/train.js";

/** Every task a worker runs: a shared queue creates a queue for each and works them. */
export const ALL_TASKS: readonly Task<unknown>[] = [trainTask, nightlyCompanyTask, nightlyFanOutTask];
