import { ApiError } from "@pricing/http-adapter";
import { isPolicyStoreError } from "@pricing/policy-store";

/**
 * Runs a change of a company's slots, answering 409 `slots_unreadable` when its slot record does not parse.
 * Refusing rather than writing a fresh record keeps what the operator may still recover by hand (the history,
 * which models were approved); once the file is restored or removed, training and promoting work again.
 */
export async function changingSlots<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isPolicyStoreError(error) && error.code === "corrupt_slots") {
      throw new ApiError("slots_unreadable", undefined, { cause: error });
    }
    throw error;
  }
}
