import { PolicyStoreError } from "./errors.js";
import { COMPANIES_PREFIX, companyKeys, decodeCompany, versionOfKey } from "./layout.js";
import { type ObjectStore, PreconditionFailedError } from "./object-store.js";
import { SlotStateSchema, type VersionClaim } from "./schemas.js";
import type { ArtifactBackend, SlotBackend, StoreBackend, StoredModel } from "./store-backend.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function json(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The store's data as objects of an {@link ObjectStore} (a folder, S3), in the layout of `layout.ts`. */
export function createObjectStoreBackend(objects: ObjectStore): StoreBackend {
  const slots: SlotBackend = {
    async read(companyId) {
      const found = await objects.get(companyKeys(companyId).slots);
      if (found === null) return null;
      try {
        return { state: SlotStateSchema.parse(JSON.parse(decoder.decode(found.body))), tag: found.etag };
      } catch {
        throw new PolicyStoreError("corrupt_slots", `slot document of company ${companyId} does not parse`);
      }
    },

    async write(companyId, state, tag) {
      try {
        await objects.put(
          companyKeys(companyId).slots,
          json(state),
          tag === null ? { ifAbsent: true } : { ifMatch: tag },
        );
        return true;
      } catch (error) {
        if (error instanceof PreconditionFailedError) return false;
        throw error;
      }
    },
  };

  /** Model id -> its keys, from the keys under the company's artifacts prefix. */
  async function modelKeys(companyId: string): Promise<Map<string, string[]>> {
    const keys = companyKeys(companyId);
    const byModel = new Map<string, string[]>();
    for (const key of await objects.list(keys.artifactsPrefix)) {
      const modelId = key.slice(keys.artifactsPrefix.length).split("/")[0] ?? "";
      byModel.set(modelId, [...(byModel.get(modelId) ?? []), key]);
    }
    return byModel;
  }

  const bodyOf = async (key: string) => (await objects.get(key))?.body ?? null;

  const artifacts: ArtifactBackend = {
    async claimVersion(claim) {
      const keys = companyKeys(claim.company_id);
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
    },

    async write(record, manifest, weights) {
      const keys = companyKeys(record.company_id);
      await objects.put(keys.weights(record.model_id), weights, { ifAbsent: true });
      await objects.put(keys.manifest(record.model_id), manifest, { ifAbsent: true });
      await objects.put(keys.record(record.model_id), json(record), { ifAbsent: true });
    },

    async readRecord(companyId, modelId) {
      const body = await bodyOf(companyKeys(companyId).record(modelId));
      if (body === null) return null;
      try {
        return JSON.parse(decoder.decode(body)) as unknown;
      } catch {
        throw new PolicyStoreError("artifact_unreadable", `record of model ${modelId} does not parse`);
      }
    },

    readManifest: (companyId, modelId) => bodyOf(companyKeys(companyId).manifest(modelId)),
    readWeights: (companyId, modelId) => bodyOf(companyKeys(companyId).weights(modelId)),

    async listModels(companyId) {
      const keys = companyKeys(companyId);
      const models: StoredModel[] = [];
      for (const [modelId, parts] of await modelKeys(companyId)) {
        models.push({ modelId, complete: parts.includes(keys.record(modelId)) });
      }
      return models;
    },

    async delete(companyId, modelId) {
      const parts = (await modelKeys(companyId)).get(modelId) ?? [];
      const ordered = [
        ...parts.filter((k) => k.endsWith("/record.json")),
        ...parts.filter((k) => !k.endsWith("/record.json")),
      ];
      for (const key of ordered) await objects.delete(key);
    },

    async versionClaims(companyId) {
      const claims = [];
      for (const key of await objects.list(companyKeys(companyId).versionsPrefix)) {
        const found = await objects.get(key);
        let claim: VersionClaim | null;
        try {
          claim = JSON.parse(decoder.decode(found?.body ?? new Uint8Array())) as VersionClaim;
        } catch {
          claim = null;
        }
        claims.push({ label: key, version: versionOfKey(key), claim });
      }
      return claims;
    },
  };

  return {
    slots,
    artifacts,
    sweepStaleLocks: async (options) => (await objects.sweepStaleLocks?.(options)) ?? [],
    async listCompanies() {
      const companies = new Set<string>();
      for (const key of await objects.list(COMPANIES_PREFIX)) {
        const segment = key.slice(COMPANIES_PREFIX.length).split("/")[0];
        if (segment) companies.add(decodeCompany(segment));
      }
      return [...companies].sort();
    },
  };
}
