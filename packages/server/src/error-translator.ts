import { EngineError } from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import {
  ApprovedModelStaleError,
  isPolicyStoreError,
  ModelIdStaleError,
  RollbackTargetError,
} from "@pricing/policy-store";
import { BUSY_RETRY_AFTER_SECONDS, isDatabaseBusy } from "./db/database-busy.js";

/**
 * The one place the server gives its libraries' errors an API meaning, for the API (the adapter's `translateError`
 * hook), the CLI (the same code and message) and the jobs (the code an operation records): services let the
 * engine's, the store's and the database's errors through and never translate them themselves. Undefined: no
 * meaning but a fault (500 `internal_error`).
 */
export function translateError(error: unknown): ApiError | undefined {
  if (isDatabaseBusy(error)) {
    // The database refusing for now, not a fault (DESIGN.md §2): the same request succeeds when retried.
    return new ApiError("unavailable", "The database is busy; retry shortly.", {
      headers: { "Retry-After": String(BUSY_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  if (error instanceof EngineError && error.code === "insufficient_history") {
    return new ApiError("insufficient_history", error.message, { cause: error });
  }
  if (error instanceof ModelIdStaleError) return new ApiError("model_id_stale", undefined, { cause: error });
  if (error instanceof ApprovedModelStaleError) {
    return new ApiError("approved_model_stale", undefined, { cause: error });
  }
  if (error instanceof RollbackTargetError) {
    return new ApiError("rollback_target_invalid", undefined, { cause: error });
  }
  if (isPolicyStoreError(error) && error.code === "corrupt_slots") {
    // Refusing rather than writing a fresh record keeps what the operator may still recover by hand (the history,
    // which models were approved); once the file is restored or removed, training and promoting work again.
    return new ApiError("slots_unreadable", undefined, { cause: error });
  }
  if (isPolicyStoreError(error) && error.code === "contention") {
    // Other processes kept winning the slots' compare-and-set.
    return new ApiError("unavailable", "The model slots are busy; retry shortly.", {
      headers: { "Retry-After": "1" },
      cause: error,
    });
  }
  return undefined;
}

/** `error` as our one error type: itself, or its translation; undefined for a fault. */
export function asApiError(error: unknown): ApiError | undefined {
  return error instanceof ApiError ? error : translateError(error);
}
