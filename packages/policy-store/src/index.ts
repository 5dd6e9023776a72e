export type { ArtifactIdentity, LoadedArtifact, SaveInput } from "./artifacts.js";
export type { ConsistencyReport } from "./consistency.js";
export {
  ApprovedModelStaleError,
  isPolicyStoreError,
  ModelIdStaleError,
  PolicyStoreError,
  type PolicyStoreErrorCode,
  RollbackTargetError,
} from "./errors.js";
export { LockTimeoutError } from "./file-lock.js";
export { FsObjectStore, type FsObjectStoreOptions, type WriteStep } from "./fs-object-store.js";
export type { GcOptions, GcResult } from "./garbage-collection.js";
export { MemoryObjectStore } from "./memory-object-store.js";
export {
  assertValidKey,
  type ObjectStore,
  PreconditionFailedError,
  type PutCondition,
  type StoredObject,
} from "./object-store.js";
export { createObjectStoreBackend } from "./object-store-backend.js";
export {
  type CommitTrainingInput,
  createPolicyStore,
  type PolicyStore,
  type PolicyStoreOptions,
  type RollbackOptions,
} from "./policy-store.js";
export {
  createPostgresBackend,
  type PgClient,
  type PgPool,
  type PostgresBackend,
  type PostgresBackendOptions,
} from "./postgres-backend.js";
export type {
  ActivePolicy,
  ActiveReport,
  ActiveResolution,
  ActiveSource,
  ApprovedSlotReport,
  FallbackReason,
  PolicyResolution,
  PolicyResolver,
  ResolverOptions,
  SlotReport,
} from "./resolution.js";
export type { RetainOptions, RetentionResult } from "./retention.js";
export {
  type ApprovedSlot,
  type ArtifactRecord,
  ArtifactRecordSchema,
  type LatestSlot,
  type Manifest,
  ModelIdSchema,
  type SlotAction,
  type SlotEvent,
  SlotEventSchema,
  type SlotState,
  SlotStateSchema,
} from "./schemas.js";
export { type ApprovalPeriod, approvalPeriods } from "./slot-history.js";
export type { SlotChange } from "./slots.js";
export type {
  ArtifactBackend,
  SlotBackend,
  StoreBackend,
  StoredModel,
  StoredSlots,
  StoredVersionClaim,
} from "./store-backend.js";
