import { decodeTime, monotonicFactory } from "ulid";
import { PolicyStoreError } from "./errors.js";
import { ModelIdSchema } from "./schemas.js";

/**
 * Mints model ids: `mdl_` + a ULID of the clock's time, monotonic within the process so ids sort by creation
 * even within one millisecond; the ULID's random part keeps ids of different processes apart.
 */
export function createModelIdMinter(clock: () => Date): () => string {
  const ulid = monotonicFactory();
  return () => `mdl_${ulid(clock().getTime())}`;
}

/** Throws `invalid_input` unless `modelId` is `mdl_` + ULID (a custom minter must keep to the format). */
export function assertMintedModelId(modelId: string): void {
  if (!ModelIdSchema.safeParse(modelId).success) {
    throw new PolicyStoreError("invalid_input", `generated model id ${modelId} is not mdl_ + ULID`);
  }
}

/** Whether `value` can name a model; anything else cannot exist, and must never reach a storage key. */
export function isModelId(value: unknown): value is string {
  return ModelIdSchema.safeParse(value).success;
}

/** When the model was minted (ms since the epoch), from its ULID; +Infinity when the id is not a ULID. */
export function mintedAt(modelId: string): number {
  try {
    return decodeTime(modelId.slice(4));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
