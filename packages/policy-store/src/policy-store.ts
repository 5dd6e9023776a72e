import { createHash } from "node:crypto";
import { decodeTime, monotonicFactory } from "ulid";
import { ModelIdStaleError, PolicyStoreError } from "./errors.js";
import { FsObjectStore } from "./fs-object-store.js";
import { COMPANIES_PREFIX, type CompanyKeys, companyKeys, decodeCompany, versionOfKey } from "./layout.js";
import { type ObjectStore, PreconditionFailedError } from "./object-store.js";
import {
  type ArtifactRecord,
  ArtifactRecordSchema,
  type Manifest,
  ManifestSchema,
  ModelIdSchema,
  type SlotAction,
  type SlotEvent,
  type SlotState,
  SlotStateSchema,
  type VersionClaim,
} from "./schemas.js";

export interface PolicyStoreOptions {
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

/** What `save` knows before the manifest is written, so the manifest can embed its own ids. */
export interface ArtifactIdentity {
  company_id: string;
  model_id: string;
  version: number;
  saved_at: string;
}

export interface SaveInput {
  companyId: string;
  /** A JSON object, or a function building it from the ids the store assigned. */
  manifest: Manifest | ((identity: ArtifactIdentity) => Manifest);
  weights: Uint8Array;
}

/** A verified artifact: both sha256 checks passed. */
export interface LoadedArtifact {
  record: ArtifactRecord;
  manifest: Manifest;
  weights: Uint8Array;
}

export interface SlotReport {
  model_id: string;
  version: number;
  trained_at: string;
  /** `manifest.metrics` (opaque JSON), or null when the manifest has none or cannot be read. */
  metrics: unknown;
}
export interface ApprovedSlotReport extends SlotReport {
  approved_at: string;
}

export type ActiveSource = "approved" | "latest" | "rule";
export type FallbackReason = "no_artifact" | "artifact_unreadable";

/** The answer of {@link PolicyStore.resolveActive}: everything the model report needs, plus the artifact. */
export interface ActiveResolution {
  company_id: string;
  /** Slot revision this answer was computed from (cache key together with `model_id`). */
  revision: number;
  source: ActiveSource;
  /** The artifact backing inference; null when `source` is `rule`. */
  model_id: string | null;
  /**
   * null when the preferred source was used (approved, or latest with no approved slot set);
   * `artifact_unreadable` when a set slot's artifact failed to load or verify; `no_artifact` when no slot is set.
   */
  fallback_reason: FallbackReason | null;
  latest: SlotReport | null;
  approved: ApprovedSlotReport | null;
  /** The verified artifact of `model_id`, loaded once here; null for `rule`. */
  artifact: LoadedArtifact | null;
}

export interface CommitTrainingInput {
  companyId: string;
  modelId: string;
  /** Also move `approved`, in the same atomic step. */
  autoApprove?: boolean;
}

export interface SlotChange {
  slots: SlotState;
  /** False when the call was a no-op (e.g. promoting the model already approved). */
  changed: boolean;
}

export interface RetainOptions {
  /** Unneeded artifacts to keep, newest first. */
  keep: number;
  /** Never delete an artifact saved more recently than this (ms), so a save about to be committed survives. Default 1 h. */
  minAgeMs?: number;
}

export interface RetentionResult {
  /** Model ids whose artifacts (or leftovers of interrupted saves) were deleted. */
  deleted: string[];
  /** Model ids of committed artifacts still stored. */
  kept: string[];
}

export interface ConsistencyReport {
  ok: boolean;
  problems: string[];
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
  promote(companyId: string, modelId: string): Promise<SlotChange>;
  /** Points `approved` back at `previous_approved`, or at `toModelId` if it was approved before. */
  rollback(companyId: string, options?: { toModelId?: string }): Promise<SlotChange>;
  /** The company's slots, revision and history (an empty state with revision 0 when nothing was committed). */
  getSlots(companyId: string): Promise<SlotState>;
  /** Applies DESIGN.md §2's source rule, verifying artifacts; never throws for a missing or corrupt artifact. */
  resolveActive(companyId: string): Promise<ActiveResolution>;
  /** Loads and verifies an artifact; throws `unknown_model` or `artifact_unreadable`. */
  loadArtifact(companyId: string, modelId: string): Promise<LoadedArtifact>;
  /** Committed artifacts of the company, by version ascending. */
  listVersions(companyId: string): Promise<ArtifactRecord[]>;
  /** Slot changes, oldest first. */
  history(companyId: string): Promise<SlotEvent[]>;
  /** Deletes artifacts no slot or approval history needs, beyond the newest `keep`. */
  retain(companyId: string, options: RetainOptions): Promise<RetentionResult>;
  /** Checks the invariants a crash must not break; lists every violation. */
  checkConsistency(companyId: string): Promise<ConsistencyReport>;
  /** Company ids with anything stored. */
  listCompanies(): Promise<string[]>;
}

const MAX_CAS_ATTEMPTS = 500;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function emptySlots(companyId: string): SlotState {
  return {
    company_id: companyId,
    revision: 0,
    latest: null,
    approved: null,
    previous_approved: null,
    history: [],
  };
}

function isTimestamp(value: unknown): value is string {
  return typeof value === "string" && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value);
}

function json(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Models approved at some point (as far as the kept history tells): the valid rollback targets. */
function everApproved(state: SlotState): Set<string> {
  const ids = new Set<string>();
  for (const id of [state.approved?.model_id, state.previous_approved]) {
    if (id) ids.add(id);
  }
  for (const event of state.history) {
    if (event.action !== "train") ids.add(event.model_id);
    if (event.replaced_approved) ids.add(event.replaced_approved);
  }
  return ids;
}

/** Models retention must keep: the slots' and every rollback target. */
function neededModels(state: SlotState): Set<string> {
  const ids = everApproved(state);
  if (state.latest !== null) ids.add(state.latest.model_id);
  return ids;
}

/**
 * Opens a policy store on a folder (`root`) or on any {@link ObjectStore}.
 *
 * @example
 * const store = createPolicyStore({ root: "./data/artifacts" });
 * const saved = await store.save({ companyId: "acme", manifest: { metrics: { uplift: 0.12 } }, weights });
 * await store.commitTraining({ companyId: "acme", modelId: saved.model_id });
 * await store.promote("acme", saved.model_id);
 * const active = await store.resolveActive("acme"); // source "approved"
 */
export function createPolicyStore(options: PolicyStoreOptions): PolicyStore {
  const objects: ObjectStore = openObjectStore(options);
  const clock = options.clock ?? (() => new Date());
  const ulid = monotonicFactory();
  const newModelId = options.newModelId ?? (() => `mdl_${ulid(clock().getTime())}`);
  const historyLimit = options.historyLimit ?? 1000;
  const now = () => clock().toISOString();

  async function readSlots(keys: CompanyKeys, companyId: string) {
    const found = await objects.get(keys.slots);
    if (found === null) return { state: emptySlots(companyId), etag: null };
    try {
      const state = SlotStateSchema.parse(JSON.parse(decoder.decode(found.body)));
      return { state, etag: found.etag };
    } catch {
      throw new PolicyStoreError("corrupt_slots", `slot document of company ${companyId} does not parse`);
    }
  }

  /** Compare-and-set loop on the slot document; `mutate` returns null for "no change". */
  async function updateSlots(
    companyId: string,
    mutate: (state: SlotState) => Promise<SlotState | null>,
  ): Promise<SlotChange> {
    const keys = companyKeys(companyId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      const { state, etag } = await readSlots(keys, companyId);
      const next = await mutate(state);
      if (next === null) return { slots: state, changed: false };
      if (next.history.length > historyLimit) next.history = next.history.slice(-historyLimit);
      try {
        await objects.put(keys.slots, json(next), etag === null ? { ifAbsent: true } : { ifMatch: etag });
        return { slots: next, changed: true };
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
      }
    }
    throw new PolicyStoreError("contention", `gave up updating the slots of ${companyId} under contention`);
  }

  function event(
    state: SlotState,
    action: SlotAction,
    modelId: string,
    version: number,
    at: string,
  ): SlotEvent[] {
    return [
      ...state.history,
      {
        revision: state.revision + 1,
        at,
        action,
        model_id: modelId,
        version,
        replaced_latest: state.latest?.model_id ?? null,
        replaced_approved: state.approved?.model_id ?? null,
      },
    ];
  }

  /** The slots after `modelId` becomes the approved model; the one it replaces is kept for rollback. */
  function approve(
    state: SlotState,
    action: "promote" | "rollback",
    modelId: string,
    source: { readonly version: number; readonly trained_at: string },
  ): SlotState {
    const at = now();
    return {
      ...state,
      revision: state.revision + 1,
      approved: {
        model_id: modelId,
        version: source.version,
        trained_at: source.trained_at,
        approved_at: at,
      },
      previous_approved: state.approved?.model_id ?? null,
      history: event(state, action, modelId, source.version, at),
    };
  }

  async function readRecord(keys: CompanyKeys, companyId: string, modelId: string): Promise<ArtifactRecord> {
    if (!ModelIdSchema.safeParse(modelId).success) {
      throw new PolicyStoreError("unknown_model", `no model ${String(modelId)} for company ${companyId}`);
    }
    const found = await objects.get(keys.record(modelId));
    if (found === null)
      throw new PolicyStoreError("unknown_model", `no model ${modelId} for company ${companyId}`);
    let record: ArtifactRecord;
    try {
      record = ArtifactRecordSchema.parse(JSON.parse(decoder.decode(found.body)));
    } catch {
      throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} does not parse`);
    }
    if (record.model_id !== modelId || record.company_id !== companyId) {
      throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} names another artifact`);
    }
    return record;
  }

  async function claimVersion(keys: CompanyKeys, claim: Omit<VersionClaim, "version">): Promise<number> {
    const claimed = (await objects.list(keys.versionsPrefix)).map(versionOfKey);
    let version = Math.max(0, ...claimed.filter((v): v is number => v !== null)) + 1;
    for (;;) {
      try {
        await objects.put(keys.version(version), json({ ...claim, version }), { ifAbsent: true });
        return version;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
        version += 1;
      }
    }
  }

  function parseManifest(bytes: Uint8Array, modelId: string): Manifest {
    try {
      return ManifestSchema.parse(JSON.parse(decoder.decode(bytes)));
    } catch {
      throw new PolicyStoreError("artifact_unreadable", `manifest of model ${modelId} does not parse`);
    }
  }

  async function readVerified(key: string, sha: string, bytes: number, what: string) {
    const found = await objects.get(key);
    if (found === null) throw new PolicyStoreError("artifact_unreadable", `${what} is missing`);
    if (found.body.byteLength !== bytes || sha256(found.body) !== sha) {
      throw new PolicyStoreError("artifact_unreadable", `${what} fails its size or sha256 check`);
    }
    return found.body;
  }

  async function readManifest(keys: CompanyKeys, record: ArtifactRecord): Promise<Manifest> {
    const modelId = record.model_id;
    const bytes = await readVerified(
      keys.manifest(modelId),
      record.manifest_sha256,
      record.manifest_bytes,
      `manifest of ${modelId}`,
    );
    return parseManifest(bytes, modelId);
  }

  async function loadArtifact(companyId: string, modelId: string): Promise<LoadedArtifact> {
    const keys = companyKeys(companyId);
    const record = await readRecord(keys, companyId, modelId);
    const [manifest, weights] = await Promise.all([
      readManifest(keys, record),
      readVerified(
        keys.weights(modelId),
        record.weights_sha256,
        record.weights_bytes,
        `weights of ${modelId}`,
      ),
    ]);
    return { record, manifest, weights };
  }

  /** Manifest metrics for a slot report; reads no weights. Null whenever anything is off. */
  async function metricsOf(keys: CompanyKeys, companyId: string, modelId: string): Promise<unknown> {
    try {
      const record = await readRecord(keys, companyId, modelId);
      return (await readManifest(keys, record)).metrics ?? null;
    } catch {
      return null;
    }
  }

  const store: PolicyStore = {
    async save(input) {
      const companyId = input.companyId;
      const keys = companyKeys(companyId);
      if (!(input.weights instanceof Uint8Array)) {
        throw new PolicyStoreError("invalid_input", "weights must be a Uint8Array");
      }
      if (typeof input.manifest !== "function") toManifestBytes(input.manifest);
      const model_id = newModelId();
      if (!ModelIdSchema.safeParse(model_id).success) {
        throw new PolicyStoreError("invalid_input", `generated model id ${model_id} is not mdl_ + ULID`);
      }
      const saved_at = now();
      // The version is claimed first so the manifest can state it; a crash after this burns the number.
      const version = await claimVersion(keys, { company_id: companyId, model_id, claimed_at: saved_at });
      const manifest =
        typeof input.manifest === "function"
          ? input.manifest({ company_id: companyId, model_id, version, saved_at })
          : input.manifest;
      const manifestBytes = toManifestBytes(manifest);
      await objects.put(keys.weights(model_id), input.weights, { ifAbsent: true });
      await objects.put(keys.manifest(model_id), manifestBytes, { ifAbsent: true });
      const record: ArtifactRecord = {
        company_id: companyId,
        model_id,
        version,
        saved_at,
        trained_at: isTimestamp(manifest.trained_at) ? new Date(manifest.trained_at).toISOString() : saved_at,
        manifest_sha256: sha256(manifestBytes),
        manifest_bytes: manifestBytes.byteLength,
        weights_sha256: sha256(input.weights),
        weights_bytes: input.weights.byteLength,
      };
      // Written last: an artifact exists exactly when its record does.
      await objects.put(keys.record(model_id), json(record), { ifAbsent: true });
      return record;
    },

    async commitTraining({ companyId, modelId, autoApprove = false }) {
      const keys = companyKeys(companyId);
      const record = await readRecord(keys, companyId, modelId);
      const change = await updateSlots(companyId, async (state) => {
        const done =
          state.latest?.model_id === modelId && (!autoApprove || state.approved?.model_id === modelId);
        if (done) return null;
        const at = now();
        const { version, trained_at } = record;
        return {
          ...state,
          revision: state.revision + 1,
          latest: { model_id: modelId, version, trained_at, committed_at: at },
          approved: autoApprove
            ? { model_id: modelId, version, trained_at, approved_at: at }
            : state.approved,
          previous_approved:
            autoApprove && state.approved?.model_id !== modelId
              ? (state.approved?.model_id ?? null)
              : state.previous_approved,
          history: event(state, autoApprove ? "train_auto_approve" : "train", modelId, version, at),
        };
      });
      return { ...change, record };
    },

    async promote(companyId, modelId) {
      companyKeys(companyId);
      return updateSlots(companyId, async (state) => {
        const latest = state.latest;
        if (latest === null || latest.model_id !== modelId) {
          throw new ModelIdStaleError(companyId, String(modelId), latest?.model_id ?? null);
        }
        if (state.approved?.model_id === modelId) return null;
        return approve(state, "promote", modelId, latest);
      });
    },

    async rollback(companyId, rollbackOptions = {}) {
      const keys = companyKeys(companyId);
      return updateSlots(companyId, async (state) => {
        const target = rollbackOptions.toModelId ?? state.previous_approved;
        if (target === null) {
          throw new PolicyStoreError(
            "nothing_to_roll_back",
            `company ${companyId} has no earlier approved model`,
          );
        }
        if (state.approved?.model_id === target) return null;
        if (!everApproved(state).has(target)) {
          throw new PolicyStoreError("nothing_to_roll_back", `model ${target} was never approved`);
        }
        const record = await readRecord(keys, companyId, target);
        return approve(state, "rollback", target, record);
      });
    },

    async getSlots(companyId) {
      return (await readSlots(companyKeys(companyId), companyId)).state;
    },

    async resolveActive(companyId) {
      const keys = companyKeys(companyId);
      const { state } = await readSlots(keys, companyId);
      const loads = new Map<string, Promise<LoadedArtifact | null>>();
      const tryLoad = (modelId: string) => {
        let pending = loads.get(modelId);
        if (pending === undefined) {
          pending = loadArtifact(companyId, modelId).catch(() => null);
          loads.set(modelId, pending);
        }
        return pending;
      };
      let source: ActiveSource = "rule";
      let artifact: LoadedArtifact | null = null;
      let fallback: FallbackReason | null = null;
      if (state.approved !== null) {
        artifact = await tryLoad(state.approved.model_id);
        if (artifact !== null) source = "approved";
        else fallback = "artifact_unreadable";
      }
      if (artifact === null && state.latest !== null) {
        artifact = await tryLoad(state.latest.model_id);
        if (artifact !== null) source = "latest";
        else fallback = "artifact_unreadable";
      }
      if (artifact === null && fallback === null) fallback = "no_artifact";

      const metrics = async (modelId: string) => {
        const loaded = loads.has(modelId) ? await tryLoad(modelId) : null;
        return loaded !== null ? (loaded.manifest.metrics ?? null) : metricsOf(keys, companyId, modelId);
      };
      const { latest, approved } = state;
      return {
        company_id: companyId,
        revision: state.revision,
        source,
        model_id: artifact?.record.model_id ?? null,
        fallback_reason: fallback,
        latest:
          latest === null
            ? null
            : {
                model_id: latest.model_id,
                version: latest.version,
                trained_at: latest.trained_at,
                metrics: await metrics(latest.model_id),
              },
        approved:
          approved === null
            ? null
            : {
                model_id: approved.model_id,
                version: approved.version,
                trained_at: approved.trained_at,
                metrics: await metrics(approved.model_id),
                approved_at: approved.approved_at,
              },
        artifact,
      };
    },

    loadArtifact,

    async listVersions(companyId) {
      const keys = companyKeys(companyId);
      const recordKeys = (await objects.list(keys.artifactsPrefix)).filter((k) => k.endsWith("/record.json"));
      const records: ArtifactRecord[] = [];
      for (const key of recordKeys) {
        const modelId = key.slice(keys.artifactsPrefix.length).split("/")[0] ?? "";
        try {
          records.push(await readRecord(keys, companyId, modelId));
        } catch {
          // Deleted meanwhile by retention, or unreadable: not a listable version.
        }
      }
      return records.sort((a, b) => a.version - b.version);
    },

    async history(companyId) {
      return (await store.getSlots(companyId)).history;
    },

    async retain(companyId, { keep, minAgeMs = 3_600_000 }) {
      if (!Number.isInteger(keep) || keep < 0) {
        throw new PolicyStoreError("invalid_input", "keep must be a non-negative integer");
      }
      const keys = companyKeys(companyId);
      const byModel = new Map<string, string[]>();
      for (const key of await objects.list(keys.artifactsPrefix)) {
        const modelId = key.slice(keys.artifactsPrefix.length).split("/")[0] ?? "";
        byModel.set(modelId, [...(byModel.get(modelId) ?? []), key]);
      }
      const cutoff = clock().getTime() - minAgeMs;
      const needed = neededModels((await readSlots(keys, companyId)).state);
      const unneeded: ArtifactRecord[] = [];
      const orphans: string[] = [];
      for (const [modelId, modelKeys] of byModel) {
        if (needed.has(modelId)) continue;
        if (!modelKeys.includes(keys.record(modelId))) {
          orphans.push(modelId);
          continue;
        }
        try {
          unneeded.push(await readRecord(keys, companyId, modelId));
        } catch {
          orphans.push(modelId);
        }
      }
      unneeded.sort((a, b) => b.version - a.version);
      const savedAt = (modelId: string) => {
        try {
          return decodeTime(modelId.slice(4));
        } catch {
          return Number.POSITIVE_INFINITY;
        }
      };
      const victims = [
        ...unneeded
          .slice(keep)
          .filter((r) => Date.parse(r.saved_at) <= cutoff)
          .map((r) => r.model_id),
        ...orphans.filter((id) => savedAt(id) <= cutoff),
      ];
      const deleted: string[] = [];
      for (const modelId of victims) {
        // Re-read right before deleting: a slot may have moved since the scan.
        if (neededModels((await readSlots(keys, companyId)).state).has(modelId)) continue;
        // The record goes first, so an interrupted deletion leaves an orphan, never a half artifact.
        const modelKeys = byModel.get(modelId) ?? [];
        const ordered = [
          ...modelKeys.filter((k) => k.endsWith("/record.json")),
          ...modelKeys.filter((k) => !k.endsWith("/record.json")),
        ];
        for (const key of ordered) await objects.delete(key);
        deleted.push(modelId);
      }
      const kept = (await store.listVersions(companyId)).map((r) => r.model_id);
      return { deleted, kept };
    },

    async checkConsistency(companyId) {
      const keys = companyKeys(companyId);
      const problems: string[] = [];
      let state: SlotState;
      try {
        state = (await readSlots(keys, companyId)).state;
      } catch (error) {
        return { ok: false, problems: [(error as Error).message] };
      }
      for (const [slot, entry] of [
        ["latest", state.latest],
        ["approved", state.approved],
      ] as const) {
        if (entry === null) continue;
        try {
          const loaded = await loadArtifact(companyId, entry.model_id);
          if (loaded.record.version !== entry.version) {
            problems.push(`${slot} says version ${entry.version}, record says ${loaded.record.version}`);
          }
        } catch (error) {
          problems.push(`${slot} points at ${entry.model_id}: ${(error as Error).message}`);
        }
      }
      const last = state.history.at(-1);
      if (last !== undefined && last.revision !== state.revision) {
        problems.push(`revision ${state.revision} but last event has revision ${last.revision}`);
      }
      const claims = new Map<number, string>();
      for (const key of await objects.list(keys.versionsPrefix)) {
        const found = await objects.get(key);
        try {
          const claim = JSON.parse(decoder.decode(found?.body ?? new Uint8Array())) as VersionClaim;
          if (claim.version !== versionOfKey(key))
            problems.push(`claim ${key} names version ${claim.version}`);
          claims.set(claim.version, claim.model_id);
        } catch {
          problems.push(`version claim ${key} does not parse`);
        }
      }
      const seen = new Set<number>();
      for (const record of await store.listVersions(companyId)) {
        if (seen.has(record.version)) problems.push(`version ${record.version} used twice`);
        seen.add(record.version);
        if (claims.get(record.version) !== record.model_id) {
          problems.push(`model ${record.model_id} has version ${record.version} claimed by another model`);
        }
      }
      return { ok: problems.length === 0, problems };
    },

    async listCompanies() {
      const companies = new Set<string>();
      for (const key of await objects.list(COMPANIES_PREFIX)) {
        const segment = key.slice(COMPANIES_PREFIX.length).split("/")[0];
        if (segment) companies.add(decodeCompany(segment));
      }
      return [...companies].sort();
    },
  };
  return store;
}

function openObjectStore(options: PolicyStoreOptions): ObjectStore {
  if (options.objectStore !== undefined) return options.objectStore;
  if (options.root === undefined) {
    throw new PolicyStoreError("invalid_input", "createPolicyStore needs root or objectStore");
  }
  return new FsObjectStore({ root: options.root, fsync: options.fsync ?? true });
}

function toManifestBytes(manifest: unknown): Uint8Array {
  let text: string | undefined;
  try {
    text = JSON.stringify(manifest);
  } catch {
    text = undefined;
  }
  const parsed = text === undefined ? undefined : ManifestSchema.safeParse(JSON.parse(text));
  if (text === undefined || parsed === undefined || !parsed.success || Array.isArray(manifest)) {
    throw new PolicyStoreError("invalid_input", "manifest must be a JSON object");
  }
  return encoder.encode(text);
}
