import { manifestBytes, parseManifest, sha256, verified } from "./artifact-integrity.js";
import { PolicyStoreError } from "./errors.js";
import { assertMintedModelId, isModelId } from "./model-ids.js";
import { type ArtifactRecord, ArtifactRecordSchema, type Manifest } from "./schemas.js";
import type { ArtifactBackend } from "./store-backend.js";

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

/** The artifacts of all companies: saved once, immutable, every read verified against its record. */
export interface Artifacts {
  save(input: SaveInput): Promise<ArtifactRecord>;
  /** The record of a committed artifact; throws `unknown_model` or `artifact_unreadable`. */
  record(companyId: string, modelId: string): Promise<ArtifactRecord>;
  /** Record, manifest and weights, both checked against the record's size and sha256. */
  load(companyId: string, modelId: string): Promise<LoadedArtifact>;
  /** `manifest.metrics` (verified manifest, no weights read); null whenever anything is off. */
  metrics(companyId: string, modelId: string): Promise<unknown>;
  /** Committed, readable artifacts by version ascending. */
  list(companyId: string): Promise<ArtifactRecord[]>;
}

function isTimestamp(value: unknown): value is string {
  return typeof value === "string" && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value);
}

export function createArtifacts(
  backend: ArtifactBackend,
  options: { newModelId: () => string; now: () => string },
): Artifacts {
  async function record(companyId: string, modelId: string): Promise<ArtifactRecord> {
    if (!isModelId(modelId)) {
      throw new PolicyStoreError("unknown_model", `no model ${String(modelId)} for company ${companyId}`);
    }
    const stored = await backend.readRecord(companyId, modelId);
    if (stored === null) {
      throw new PolicyStoreError("unknown_model", `no model ${modelId} for company ${companyId}`);
    }
    const parsed = ArtifactRecordSchema.safeParse(stored);
    if (!parsed.success) {
      throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} does not parse`);
    }
    if (parsed.data.model_id !== modelId || parsed.data.company_id !== companyId) {
      throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} names another artifact`);
    }
    return parsed.data;
  }

  async function manifestOf(companyId: string, found: ArtifactRecord): Promise<Manifest> {
    const modelId = found.model_id;
    const bytes = verified(
      await backend.readManifest(companyId, modelId),
      found.manifest_sha256,
      found.manifest_bytes,
      `manifest of ${modelId}`,
    );
    return parseManifest(bytes, modelId);
  }

  return {
    async save(input) {
      const companyId = input.companyId;
      if (!(input.weights instanceof Uint8Array)) {
        throw new PolicyStoreError("invalid_input", "weights must be a Uint8Array");
      }
      if (typeof input.manifest !== "function") manifestBytes(input.manifest);
      const model_id = options.newModelId();
      assertMintedModelId(model_id);
      const saved_at = options.now();
      // The version is claimed first so the manifest can state it; a crash after this burns the number.
      const version = await backend.claimVersion({ company_id: companyId, model_id, claimed_at: saved_at });
      const manifest =
        typeof input.manifest === "function"
          ? input.manifest({ company_id: companyId, model_id, version, saved_at })
          : input.manifest;
      const manifestBody = manifestBytes(manifest);
      const saved: ArtifactRecord = {
        company_id: companyId,
        model_id,
        version,
        saved_at,
        trained_at: isTimestamp(manifest.trained_at) ? new Date(manifest.trained_at).toISOString() : saved_at,
        manifest_sha256: sha256(manifestBody),
        manifest_bytes: manifestBody.byteLength,
        weights_sha256: sha256(input.weights),
        weights_bytes: input.weights.byteLength,
      };
      await backend.write(saved, manifestBody, input.weights);
      return saved;
    },

    record,

    async load(companyId, modelId) {
      const found = await record(companyId, modelId);
      const [manifest, weights] = await Promise.all([
        manifestOf(companyId, found),
        backend
          .readWeights(companyId, modelId)
          .then((bytes) =>
            verified(bytes, found.weights_sha256, found.weights_bytes, `weights of ${modelId}`),
          ),
      ]);
      return { record: found, manifest, weights };
    },

    async metrics(companyId, modelId) {
      try {
        return (await manifestOf(companyId, await record(companyId, modelId))).metrics ?? null;
      } catch {
        return null;
      }
    },

    async list(companyId) {
      const records: ArtifactRecord[] = [];
      for (const model of await backend.listModels(companyId)) {
        if (!model.complete) continue;
        try {
          records.push(await record(companyId, model.modelId));
        } catch {
          // Deleted meanwhile by retention, or unreadable: not a listable version.
        }
      }
      return records.sort((a, b) => a.version - b.version);
    },
  };
}
