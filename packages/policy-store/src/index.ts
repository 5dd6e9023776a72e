export {
  isPolicyStoreError,
  ModelIdStaleError,
  PolicyStoreError,
  type PolicyStoreErrorCode,
} from "./errors.js";
export { LockTimeoutError } from "./file-lock.js";
export { FsObjectStore, type FsObjectStoreOptions, type WriteStep } from "./fs-object-store.js";
export { MemoryObjectStore } from "./memory-object-store.js";
export {
  assertValidKey,
  type ObjectStore,
  PreconditionFailedError,
  type PutCondition,
  type StoredObject,
} from "./object-store.js";
export {
  type ActiveResolution,
  type ActiveSource,
  type ApprovedSlotReport,
  type ArtifactIdentity,
  type CommitTrainingInput,
  type ConsistencyReport,
  createPolicyStore,
  type FallbackReason,
  type LoadedArtifact,
  type PolicyStore,
  type PolicyStoreOptions,
  type RetainOptions,
  type RetentionResult,
  type SaveInput,
  type SlotChange,
  type SlotReport,
} from "./policy-store.js";
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
