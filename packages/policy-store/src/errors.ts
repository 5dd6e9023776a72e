/** Stable codes of {@link PolicyStoreError}; callers switch on these, never on messages. */
export type PolicyStoreErrorCode =
  /** promote: the model id is not the current latest (see `currentLatestId`). */
  | "model_id_stale"
  /** rollback: the approved slot does not hold the model the caller expected (see `currentApprovedId`). */
  | "approved_model_stale"
  /** No committed artifact with this id for this company. */
  | "unknown_model"
  /** The artifact is missing, partial, or fails its sha256 check. */
  | "artifact_unreadable"
  /** rollback: no earlier approved model to go back to. */
  | "nothing_to_roll_back"
  /** Bad argument (company id, manifest, weights, options). */
  | "invalid_input"
  /** A compare-and-set kept losing to concurrent writers beyond the retry bound. */
  | "contention"
  /** The company's slot document does not parse: storage was altered outside the store. */
  | "corrupt_slots";

export class PolicyStoreError extends Error {
  constructor(
    readonly code: PolicyStoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "PolicyStoreError";
  }
}

/** promote() lost: `currentLatestId` is the latest model id right now (null when there is none). */
export class ModelIdStaleError extends PolicyStoreError {
  override readonly code = "model_id_stale";
  constructor(
    readonly companyId: string,
    readonly modelId: string,
    readonly currentLatestId: string | null,
  ) {
    super(
      "model_id_stale",
      currentLatestId === null
        ? `model ${modelId} is not the latest: company has no latest model`
        : `model ${modelId} is not the latest: the latest is ${currentLatestId}`,
    );
    this.name = "ModelIdStaleError";
  }
}

/** rollback() with an expected approved model lost: `currentApprovedId` is approved right now (null: none). */
export class ApprovedModelStaleError extends PolicyStoreError {
  override readonly code = "approved_model_stale";
  constructor(
    readonly companyId: string,
    readonly expectedApprovedId: string | null,
    readonly currentApprovedId: string | null,
  ) {
    super(
      "approved_model_stale",
      `expected ${expectedApprovedId ?? "no model"} approved for company ${companyId}, found ${currentApprovedId ?? "none"}`,
    );
    this.name = "ApprovedModelStaleError";
  }
}

/**
 * rollback() refused its target: never approved or nothing earlier to go back to (`nothing_to_roll_back`), no
 * longer stored (`unknown_model`), or failing its hash check (`artifact_unreadable`). Its own class because the
 * last two codes mean something else outside a rollback: a caller tells "the target is invalid" by the class.
 */
export class RollbackTargetError extends PolicyStoreError {
  constructor(code: "nothing_to_roll_back" | "unknown_model" | "artifact_unreadable", message: string) {
    super(code, message);
    this.name = "RollbackTargetError";
  }
}

export function isPolicyStoreError(error: unknown): error is PolicyStoreError {
  return error instanceof PolicyStoreError;
}
