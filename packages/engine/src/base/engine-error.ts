/** Why a company could not be trained: too little history, or the training itself failed. */
export type TrainingErrorCode = "insufficient_history" | "training_failed";

/** Why an artifact could not be loaded: its files do not parse or fit (`invalid`), or another engine made it. */
export type ArtifactErrorCode = "artifact_invalid" | "artifact_incompatible";

/**
 * Why the planning pool could not plan: `plan_thread_exited` (the thread died mid-plan; a new one takes the next
 * plan), `plan_pool_closed` (the pool was closed first), `plan_failed` (the plan itself threw something that is
 * not an `EngineError`; the message names it).
 */
export type PlanPoolErrorCode = "plan_thread_exited" | "plan_pool_closed" | "plan_failed";

export type EngineErrorCode = TrainingErrorCode | ArtifactErrorCode | PlanPoolErrorCode;

const CODES: ReadonlySet<string> = new Set<EngineErrorCode>([
  "insufficient_history",
  "training_failed",
  "artifact_invalid",
  "artifact_incompatible",
  "plan_thread_exited",
  "plan_pool_closed",
  "plan_failed",
]);

/**
 * The engine's one error type: callers switch on `code`, which is stable, never on the message. The server gives
 * the codes their API meaning (`insufficient_history` is a 422); the policy store's resolver reports
 * `artifact_incompatible` as such and every other code as `artifact_unreadable`.
 */
export class EngineError<C extends EngineErrorCode = EngineErrorCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string) {
    super(message);
    this.name = "EngineError";
    this.code = code;
  }
}

/** Whether `code` (from a thread's message) is one of the engine's codes. */
export function isEngineErrorCode(code: string): code is EngineErrorCode {
  return CODES.has(code);
}
