import { z } from "zod";

/** `mdl_` + a ULID: unique, and sorts by creation time. */
export const ModelIdSchema = z.string().regex(/^mdl_[0-9A-HJKMNP-TV-Z]{26}$/);

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
const TimestampSchema = z.iso.datetime();

/** The store's own record of a saved artifact; its presence is what makes an artifact exist. */
export const ArtifactRecordSchema = z.strictObject({
  company_id: z.string(),
  model_id: ModelIdSchema,
  version: z.number().int().positive(),
  saved_at: TimestampSchema,
  /** `manifest.trained_at` when it is a timestamp, else `saved_at`. */
  trained_at: TimestampSchema,
  manifest_sha256: Sha256Schema,
  manifest_bytes: z.number().int().nonnegative(),
  weights_sha256: Sha256Schema,
  weights_bytes: z.number().int().nonnegative(),
});
export type ArtifactRecord = z.infer<typeof ArtifactRecordSchema>;

/** Claims a version number for one model, forever (a claim is never deleted, so no version is reused). */
export const VersionClaimSchema = z.strictObject({
  company_id: z.string(),
  version: z.number().int().positive(),
  model_id: ModelIdSchema,
  claimed_at: TimestampSchema,
});
export type VersionClaim = z.infer<typeof VersionClaimSchema>;

export const LatestSlotSchema = z.strictObject({
  model_id: ModelIdSchema,
  version: z.number().int().positive(),
  trained_at: TimestampSchema,
  committed_at: TimestampSchema,
});
export type LatestSlot = z.infer<typeof LatestSlotSchema>;

export const ApprovedSlotSchema = z.strictObject({
  model_id: ModelIdSchema,
  version: z.number().int().positive(),
  trained_at: TimestampSchema,
  approved_at: TimestampSchema,
});
export type ApprovedSlot = z.infer<typeof ApprovedSlotSchema>;

export const SlotActionSchema = z.enum(["train", "train_auto_approve", "promote", "rollback"]);
export type SlotAction = z.infer<typeof SlotActionSchema>;

/** One change of the slots; `revision` is the slot revision it produced. */
export const SlotEventSchema = z.strictObject({
  revision: z.number().int().positive(),
  at: TimestampSchema,
  action: SlotActionSchema,
  model_id: ModelIdSchema,
  version: z.number().int().positive(),
  /** The latest model before this change (null when none). */
  replaced_latest: ModelIdSchema.nullable(),
  /** The approved model before this change (null when none). */
  replaced_approved: ModelIdSchema.nullable(),
  /**
   * Who made the change, as the caller names it (e.g. a partner id, "operator"); absent in events written before
   * it was recorded, and when the caller did not say.
   */
  by: z.string().min(1).max(200).optional(),
});
export type SlotEvent = z.infer<typeof SlotEventSchema>;

/** A company's slots: the single document every slot change compare-and-sets. */
export const SlotStateSchema = z.strictObject({
  company_id: z.string(),
  /** 0 before the first change; +1 per change. */
  revision: z.number().int().nonnegative(),
  latest: LatestSlotSchema.nullable(),
  approved: ApprovedSlotSchema.nullable(),
  /** The approved model before the last change of the approved slot: the default rollback target. */
  previous_approved: ModelIdSchema.nullable(),
  /** Slot changes, oldest first (the oldest are dropped past the store's history limit). */
  history: z.array(SlotEventSchema),
});
export type SlotState = z.infer<typeof SlotStateSchema>;

/** An artifact manifest: any JSON object (the engine owns its schema). */
export const ManifestSchema = z.record(z.string(), z.unknown());
export type Manifest = z.infer<typeof ManifestSchema>;
