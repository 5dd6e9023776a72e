import { beforeAll, describe, expect, it } from "vitest";
import { EngineError } from "../base/engine-error.js";
import { trainPolicy } from "../policy/fitted-q.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import { trainingDataFromProblems } from "../policy/training-input.js";
import { buildProblem } from "../problem/problem-setup.js";
import { checkPolicyArtifact, loadPolicyArtifact, serializeArtifact } from "./policy-artifact.js";
import { type PolicyManifest, PolicyManifestSchema } from "./policy-manifest.js";

const prices = [6, 7, 8, 9, 10, 11, 12, 13, 14];
const setup = (productId: string, stock: number | null) => ({
  productId,
  startDate: "2026-02-02",
  horizon: 10,
  prices,
  minPrice: 6,
  maxPrice: 14,
  shutoff: false,
  unitCost: 2,
  stock,
  maxDailyChange: null,
  initialPrice: null,
  distribution: "poisson" as const,
  overdispersion: 0,
});

let policy: RlPolicy;
const states = {
  product: Int32Array.of(0, 1, 0, 1),
  day: Int32Array.of(1, 1, 5, 9),
  stock: Float64Array.of(25, Number.POSITIVE_INFINITY, 3, Number.POSITIVE_INFINITY),
  prevPrice: Float64Array.of(10, Number.NaN, 7, 12),
};

beforeAll(async () => {
  const problems = [
    buildProblem(setup("a", 30), (_, p) => 4 * (p / 10) ** -2),
    buildProblem(setup("b", null), (d, p) => 3 * (p / 10) ** -1.5 * (d % 2 ? 1.2 : 1)),
  ];
  policy = await trainPolicy({
    companyId: "acme",
    products: trainingDataFromProblems(problems),
    demandModel: { family: "constant_elasticity", elasticity: { a: 2, b: 1.5 } },
    config: { seed: 5, stepsPerDay: 10, finalSteps: 50 },
  });
});

function roundTrip(artifact: ReturnType<typeof serializeArtifact>) {
  // What a store does: JSON text for the manifest, raw bytes for the weights.
  return {
    manifest: JSON.parse(JSON.stringify(artifact.manifest)) as unknown,
    weights: Uint8Array.from(artifact.weights),
  };
}

describe("policy artifact", () => {
  it("round-trips to identical prices, with a manifest of plain data and no id or checksum", async () => {
    const artifact = serializeArtifact(policy, { margins: { policy: 110, rule: 100 } });
    // The policy store mints the id and pins the bytes; the engine writes neither.
    expect(Object.keys(artifact.manifest)).not.toContain("modelId");
    expect(Object.keys(artifact.manifest)).not.toContain("weightsSha256");
    expect(artifact.manifest.metrics.upliftPct).toBeCloseTo(10);
    expect(artifact.manifest.demandModel).toEqual({
      family: "constant_elasticity",
      elasticity: { a: 2, b: 1.5 },
    });
    expect(artifact.manifest.training.seed).toBe(5);
    const loaded = await loadPolicyArtifact(roundTrip(artifact));
    expect(loaded.evaluate(states.product, states.day, states.stock)).toEqual(
      policy.evaluate(states.product, states.day, states.stock),
    );
    expect(loaded.priceStates(states)).toEqual(policy.priceStates(states));
    const p1 = policy.productPolicy("a");
    const p2 = loaded.productPolicy("a");
    for (let day = 0; day < 10; day++)
      for (let s = 0; s <= 30; s++) expect(p2(day, s, -1)).toBe(p1(day, s, -1));
    loaded.dispose();
  });

  it("loads a manifest written before the store owned ids and hashes (existing data dirs)", async () => {
    const artifact = roundTrip(serializeArtifact(policy));
    const legacy = {
      ...(artifact.manifest as Record<string, unknown>),
      modelId: "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      weightsBytes: artifact.weights.byteLength,
      weightsSha256: "0".repeat(64),
    };
    const loaded = await loadPolicyArtifact({ manifest: legacy, weights: artifact.weights });
    expect(loaded.priceStates(states)).toEqual(policy.priceStates(states));
    loaded.dispose();
  });

  it("reads `estimatedMargin` of a manifest written before the rename as `networkEstimatedMargin`", async () => {
    const artifact = roundTrip(serializeArtifact(policy));
    const { networkEstimatedMargin, ...metrics } = (artifact.manifest as PolicyManifest).metrics;
    const legacy = {
      ...(artifact.manifest as PolicyManifest),
      metrics: { ...metrics, estimatedMargin: 123.5 },
    };
    expect(networkEstimatedMargin).toBe(policy.data.training.estimatedValue);
    expect(PolicyManifestSchema.parse(legacy).metrics).toEqual({ ...metrics, networkEstimatedMargin: 123.5 });
    const loaded = await loadPolicyArtifact({ manifest: legacy, weights: artifact.weights });
    expect(loaded.data.training.estimatedValue).toBe(123.5);
    loaded.dispose();
  });

  it("rejects weights too short for the manifest's tensors with a typed error", async () => {
    const artifact = roundTrip(serializeArtifact(policy));
    const weights = artifact.weights.subarray(0, artifact.weights.length - 4);
    const error = await loadPolicyArtifact({ manifest: artifact.manifest, weights }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe("artifact_invalid");
  });

  it("rejects a manifest that fails its schema or does not fit the weights", async () => {
    const artifact = serializeArtifact(policy);
    const bad = [
      { ...artifact.manifest, format: "something-else" },
      { ...artifact.manifest, extra: 1 },
      { ...artifact.manifest, tensors: artifact.manifest.tensors.slice(1) },
      {
        ...artifact.manifest,
        featureSpec: { ...artifact.manifest.featureSpec, stateFeatures: ["days_left_fraction"] },
      },
      { ...artifact.manifest, formatVersion: 0 },
      "not an object",
      {
        ...artifact.manifest,
        network: { ...artifact.manifest.network, hidden: artifact.manifest.network.hidden.map((h) => h + 1) },
      },
    ];
    const codes = [];
    for (const manifest of bad) {
      const error = await loadPolicyArtifact({ manifest, weights: artifact.weights }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EngineError);
      codes.push((error as EngineError).code);
      // The check without TensorFlow refuses exactly what the load refuses.
      let checked: unknown;
      try {
        checkPolicyArtifact({ manifest, weights: artifact.weights });
      } catch (e) {
        checked = e;
      }
      expect(checked).toEqual(error);
    }
    expect(codes).toEqual([
      "artifact_invalid",
      "artifact_invalid",
      "artifact_invalid",
      "artifact_incompatible",
      "artifact_incompatible",
      "artifact_invalid",
      "artifact_invalid",
    ]);
    expect(checkPolicyArtifact(roundTrip(artifact))).toEqual(roundTrip(artifact).manifest);
  });
});
