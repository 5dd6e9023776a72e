/**
 * Why the planning pool could not plan: `plan_thread_exited` (the thread died mid-plan; a new one takes the next
 * plan), `plan_pool_closed` (the pool was closed first), `plan_failed` (the plan itself threw something that is
 * not one of the engine's typed errors; the message names it).
 */
export type PlanPoolErrorCode = "plan_thread_exited" | "plan_pool_closed" | "plan_failed";

export class PlanPoolError extends Error {
  readonly code: PlanPoolErrorCode;

  constructor(code: PlanPoolErrorCode, message: string) {
    super(message);
    this.name = "PlanPoolError";
    this.code = code;
  }
}
