import type { PolicyManifest } from "../artifact/policy-manifest.js";
import { EngineError, isEngineErrorCode } from "../base/engine-error.js";
import type { PlannedPrice } from "../plan/company-plan.js";
import type { PolicyActivity } from "../policy/policy-activity.js";
import type { PackedPlan } from "./packed-plan.js";
import type { PlanJob } from "./plan-job.js";

/** An artifact reference on the wire: with its bytes the first time a thread needs it, by key after that. */
export interface WireArtifact {
  readonly key: string;
  readonly manifest?: PolicyManifest;
  readonly weights?: Uint8Array;
}

export type WireJob = Omit<PlanJob, "active"> & {
  readonly active:
    | { readonly source: "approved" | "latest"; readonly modelId: string; readonly artifact: WireArtifact }
    | { readonly source: "rule"; readonly modelId: null; readonly artifact: null };
};

export interface PlanMessage {
  readonly type: "plan";
  readonly id: number;
  readonly job: WireJob;
}

/** What a thread was started with. */
export interface ThreadData {
  /** Deserialized policies the thread keeps, least recently used dropped first. */
  readonly cacheSize: number;
}

export interface WireError {
  readonly name: string;
  readonly code: string | null;
  readonly message: string;
}

export type ThreadReply =
  | {
      readonly type: "done";
      readonly id: number;
      /** The rows as columns, their buffers transferred; the rows themselves only when they do not pack. */
      readonly plan: PackedPlan | PlannedPrice[];
      readonly activity: PolicyActivity;
    }
  /** The job named an artifact by key only and the thread no longer holds it: send it again with its bytes. */
  | { readonly type: "missing"; readonly id: number; readonly key: string }
  | { readonly type: "error"; readonly id: number; readonly error: WireError };

export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, code: typeof code === "string" ? code : null, message: error.message };
  }
  return { name: "Error", code: null, message: String(error) };
}

/** The thread's error as the engine's typed error with the same code; anything else as `plan_failed`. */
export function fromWireError(wire: WireError): Error {
  if (wire.name === "EngineError" && wire.code !== null && isEngineErrorCode(wire.code)) {
    return new EngineError(wire.code, wire.message);
  }
  return new EngineError("plan_failed", `${wire.name}: ${wire.message}`);
}
