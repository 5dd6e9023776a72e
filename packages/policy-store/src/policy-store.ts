import { createArtifacts, type LoadedArtifact, type SaveInput } from "./artifacts.js";
import { assertCompanyId } from "./company-id.js";
import { type ConsistencyReport, checkConsistency } from "./consistency.js";
import { PolicyStoreError, RollbackTargetError } from "./errors.js";
import { FsObjectStore } from "./fs-object-store.js";
import { collectGarbage, type GcOptions, type GcResult } from "./garbage-collection.js";
import { createModelIdMinter } from "./model-ids.js";
import type { ObjectStore } from "./object-store.js";
import { createObjectStoreBackend } from "./object-store-backend.js";
import {
  type ActiveResolution,
  createPolicyResolver,
  createResolveWith,
  type PolicyResolver,
  type ResolverOptions,
} from "./resolution.js";
import { type RetainOptions, type RetentionResult, retain } from "./retention.js";
import type { ArtifactRecord, SlotEvent, SlotState } from "./schemas.js";
import { afterPromote, afterRollback, afterTraining, rollbackTarget } from "./slot-transitions.js";
import { createSlots, type SlotChange } from "./slots.js";
import type { StoreBackend } from "./store-backend.js";

export interface PolicyStoreOptions {
  /** Where the data lives, e.g. {@link createPostgresBackend}'s; when given, `root`, `objectStore` and `fsync` are ignored. */
  backend?: StoreBackend;
  /** Folder of the default filesystem object store (ignored when `objectStore` is given). */
  root?: string;
  /** Storage to use instead of a folder, e.g. an S3-compatible implementation. */
  objectStore?: ObjectStore;
  /** fsync writes of the default folder store. Default true. */
  fsync?: boolean;
  /** Source of time for ids and timestamps. Default `() => new Date()`. */
  clock?: () => Date;
  /** Model id generator; must be unique across processes. Default `mdl_` + monotonic ULID. */
  newModelId?: () => string;
  /** Slot events kept in the slot document (oldest dropped first). Default 1000. */
  historyLimit?: number;
}

export interface CommitTrainingInput {
  companyId: string;
  modelId: string;
  /** Also move `approved`, in the same atomic step. */
  autoApprove?: boolean;
  /** Who trained, recorded in the slot event (see {@link SlotEvent.by}). */
  by?: string;
}

export interface RollbackOptions {
  /** The model to approve again (it must have been approved before); default `previous_approved`. */
  toModelId?: string;
  /**
   * Compare-and-set: the model the caller believes is approved now (null: none). When the approved slot holds
   * another, nothing changes and {@link ApprovedModelStaleError} is thrown.
   */
  expectedApprovedId?: string | null;
  /** Who rolled back, recorded in the slot event. */
  by?: string;
}

/** Versioned policy artifacts and the `latest` / `approved` slots of each company. */
export interface PolicyStore {
  /** Stores an artifact and assigns it a `model_id` and the company's next version; moves no slot. */
  save(input: SaveInput): Promise<ArtifactRecord>;
  /** Points `latest` (and `approved` too with `autoApprove`) at a saved artifact in one atomic step. */
  commitTraining(input: CommitTrainingInput): Promise<SlotChange & { record: ArtifactRecord }>;
  /**
   * Copies `latest` into `approved` if `modelId` is the current latest; otherwise throws
   * {@link ModelIdStaleError} carrying the current latest id. Promoting the approved latest again is a no-op.
   */
  promote(companyId: string, modelId: string, options?: { by?: string }): Promise<SlotChange>;
  /**
   * Points `approved` back at `previous_approved`, or at `toModelId` if it was approved before, once its artifact
   * has loaded and verified (else `artifact_unreadable` / `unknown_model`, nothing changed).
   */
  rollback(companyId: string, options?: RollbackOptions): Promise<SlotChange>;
  /** The company's slots, revision and history (an empty state with revision 0 when nothing was committed). */
  getSlots(companyId: string): Promise<SlotState>;
  /**
   * Removes artifacts no slot and no history event mention (trainings that died before taking a slot, partial
   * saves) once older than `minAgeMs`, and stale lock files; with `dryRun`, only lists them.
   */
  gc(options?: GcOptions): Promise<GcResult>;
  /** Applies DESIGN.md §2's source rule, verifying artifacts; never throws for a missing or corrupt artifact. */
  resolveActive(companyId: string): Promise<ActiveResolution>;
  /**
   * A resolver applying the same rule with the caller's `load` (e.g. "rebuild the network"): a load that throws
   * counts as an unreadable artifact and falls through; loaded values are cached by model id (LRU, disposed).
   */
  createResolver<T>(options: ResolverOptions<T>): PolicyResolver<T>;
  /** Loads and verifies an artifact; throws `unknown_model` or `artifact_unreadable`. */
  loadArtifact(companyId: string, modelId: string): Promise<LoadedArtifact>;
  /** Committed artifacts of the company, by version ascending. */
  listVersions(companyId: string): Promise<ArtifactRecord[]>;
  /** `manifest.metrics` of a committed artifact (verified manifest, weights unread); null whenever anything is off. */
  artifactMetrics(companyId: string, modelId: string): Promise<unknown>;
  /** Slot changes, oldest first. */
  history(companyId: string): Promise<SlotEvent[]>;
  /** Deletes artifacts no slot or approval history needs, beyond the newest `keep`. */
  retain(companyId: string, options: RetainOptions): Promise<RetentionResult>;
  /** Checks the invariants a crash must not break; lists every violation. */
  checkConsistency(companyId: string): Promise<ConsistencyReport>;
  /** Company ids with anything stored. */
  listCompanies(): Promise<string[]>;
}

/**
 * Opens a policy store on a folder (`root`), on any {@link ObjectStore}, or on a {@link StoreBackend} such as
 * PostgreSQL's (`createPostgresBackend`).
 *
 * @example
 * const store = createPolicyStore({ root: "./data/artifacts" });
 * const saved = await store.save({ companyId: "acme", manifest: { metrics: { uplift: 0.12 } }, weights });
 * await store.commitTraining({ companyId: "acme", modelId: saved.model_id });
 * await store.promote("acme", saved.model_id);
 * const active = await store.resolveActive("acme"); // source "approved"
 */
export function createPolicyStore(options: PolicyStoreOptions): PolicyStore {
  const backend = options.backend ?? createObjectStoreBackend(openObjectStore(options));
  const clock = options.clock ?? (() => new Date());
  const now = () => clock().toISOString();
  const slots = createSlots(backend.slots, { historyLimit: options.historyLimit ?? 1000 });
  const artifacts = createArtifacts(backend.artifacts, {
    newModelId: options.newModelId ?? createModelIdMinter(clock),
    now,
  });
  const resolveWith = createResolveWith(slots, artifacts);
  const deps = { slots, artifacts, backend: backend.artifacts, clock };
  /** Every operation rejects a bad company id before touching storage. */
  const company = (companyId: string) => {
    assertCompanyId(companyId);
    return companyId;
  };

  return {
    save: async (input) => artifacts.save({ ...input, companyId: company(input.companyId) }),

    async commitTraining({ companyId, modelId, autoApprove = false, by }) {
      const record = await artifacts.record(company(companyId), modelId);
      const change = await slots.update(companyId, async (state) =>
        afterTraining(state, modelId, record, autoApprove, now, by),
      );
      return { ...change, record };
    },

    async promote(companyId, modelId, promoteOptions = {}) {
      return slots.update(company(companyId), async (state) =>
        afterPromote(state, modelId, now, promoteOptions.by),
      );
    },

    async rollback(companyId, rollbackOptions = {}) {
      const { toModelId, expectedApprovedId, by } = rollbackOptions;
      // Each compare-and-set round checks the expectation against the state it would replace.
      return slots.update(company(companyId), async (state) => {
        const target = rollbackTarget(state, toModelId, expectedApprovedId);
        if (target === null) return null;
        // Approving an artifact that no longer loads would only make the resolver fall back: refuse instead.
        const { record } = await artifacts.load(companyId, target).catch((error: unknown) => {
          if (error instanceof PolicyStoreError) {
            if (error.code === "unknown_model" || error.code === "artifact_unreadable")
              throw new RollbackTargetError(error.code, error.message);
          }
          throw error;
        });
        return afterRollback(state, target, record, now(), by);
      });
    },

    getSlots: async (companyId) => slots.read(company(companyId)),

    async resolveActive(companyId) {
      const { active, report } = await resolveWith(company(companyId), async (artifact) => artifact);
      return { ...report, artifact: active.policy };
    },

    createResolver: (resolverOptions) =>
      createPolicyResolver((companyId, load) => resolveWith(company(companyId), load), resolverOptions),

    loadArtifact: async (companyId, modelId) => artifacts.load(company(companyId), modelId),
    listVersions: async (companyId) => artifacts.list(company(companyId)),
    artifactMetrics: async (companyId, modelId) => artifacts.metrics(company(companyId), modelId),
    history: async (companyId) => (await slots.read(company(companyId))).history,
    retain: async (companyId, retainOptions) => retain(deps, company(companyId), retainOptions),
    checkConsistency: async (companyId) => checkConsistency(deps, company(companyId)),
    listCompanies: () => backend.listCompanies(),
    gc: async (gcOptions) =>
      collectGarbage(
        {
          ...deps,
          listCompanies: () => backend.listCompanies(),
          sweepStaleLocks: (sweep) => backend.sweepStaleLocks?.(sweep) ?? Promise.resolve([]),
        },
        gcOptions,
      ),
  };
}

function openObjectStore(options: PolicyStoreOptions): ObjectStore {
  if (options.objectStore !== undefined) return options.objectStore;
  if (options.root === undefined) {
    throw new PolicyStoreError("invalid_input", "createPolicyStore needs root or objectStore");
  }
  return new FsObjectStore({ root: options.root, fsync: options.fsync ?? true });
}
