import type { ArtifactRecord, SlotState, VersionClaim } from "./schemas.js";

/**
 * Where a policy store keeps its data. Everything above this seam (ids, versions' meaning, hash checks, slot
 * transitions, the source rule, retention) is backend-independent; a backend only stores and compare-and-sets.
 * The folder / S3 implementation is {@link createObjectStoreBackend}; the PostgreSQL one is
 * {@link createPostgresBackend} (slot document as a row with a revision column, artifacts as rows with a unique
 * version per company).
 */
export interface StoreBackend {
  readonly slots: SlotBackend;
  readonly artifacts: ArtifactBackend;
  /** Company ids with anything stored (slots or artifacts), sorted. */
  listCompanies(): Promise<string[]>;
  /** Removes lock files whose holder died (stores that lock with files); returns their paths. */
  sweepStaleLocks?(options: { dryRun: boolean }): Promise<string[]>;
}

/** The company's slot document, and the opaque tag a compare-and-set must present to replace it. */
export interface StoredSlots {
  readonly state: SlotState;
  readonly tag: string;
}

export interface SlotBackend {
  /** The stored slot document, or null when the company has none. Throws `corrupt_slots` when it does not parse. */
  read(companyId: string): Promise<StoredSlots | null>;
  /**
   * Replaces the slot document only if it still carries `tag` (or, with `tag` null, only if none is stored), in
   * one atomic step across processes. False when that condition failed; nothing was written then.
   */
  write(companyId: string, state: SlotState, tag: string | null): Promise<boolean>;
}

/** One version claim as stored, for the consistency check. */
export interface StoredVersionClaim {
  /** Where the claim lives (for messages). */
  readonly label: string;
  /** The version the storage location stands for. */
  readonly version: number | null;
  /** The claim, or null when it does not parse. */
  readonly claim: VersionClaim | null;
}

/** Parts of one artifact found in storage; `complete` when its record exists (only then does the artifact). */
export interface StoredModel {
  readonly modelId: string;
  readonly complete: boolean;
}

export interface ArtifactBackend {
  /**
   * Claims the company's next free version for a model: never the same number twice for a company, even across
   * processes, and never reused (claims are never deleted).
   */
  claimVersion(claim: Omit<VersionClaim, "version">): Promise<number>;
  /** Stores weights and manifest bytes, then the record last: an artifact exists exactly when its record does. */
  write(record: ArtifactRecord, manifest: Uint8Array, weights: Uint8Array): Promise<void>;
  /** The record as stored (unvalidated JSON), or null when absent. Throws `artifact_unreadable` when not JSON. */
  readRecord(companyId: string, modelId: string): Promise<unknown>;
  /** The manifest bytes exactly as written, or null. */
  readManifest(companyId: string, modelId: string): Promise<Uint8Array | null>;
  /** The weights bytes exactly as written, or null. */
  readWeights(companyId: string, modelId: string): Promise<Uint8Array | null>;
  /** Every model with any part stored, complete or left over by an interrupted save. */
  listModels(companyId: string): Promise<StoredModel[]>;
  /** Deletes every part of a model, the record first (an interrupted deletion leaves an orphan, never a half artifact). */
  delete(companyId: string, modelId: string): Promise<void>;
  /** Every version claim of the company. */
  versionClaims(companyId: string): Promise<StoredVersionClaim[]>;
}
