import { ApiError } from "@pricing/http-adapter";
import { isPolicyStoreError } from "@pricing/policy-store";

/**
 * Runs a change of a company's slots, answering 409 `slots_unreadable` when its slot record does not parse, and
 * 503 with `Retry-After` while other processes keep winning the compare-and-set. Refusing rather than writing a
 * fresh record keeps what the operator may still recover by hand (the history, which models were approved); once
 * the file is restored or removed, training and promoting work again.
 */
export async function changingSlots<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isPolicyStoreError(error) && error.code === "corrupt_slots") {
      throw new ApiError("slots_unreadable", undefined, { cause: error });
    }
    if (isPolicyStoreError(error) && error.code === "contention") {
      throw new ApiError("unavailable", "The model slots are busy; retry shortly.", {
        headers: { "Retry-After": "1" },
        cause: error,
      });
    }
    throw error;
  }
}
