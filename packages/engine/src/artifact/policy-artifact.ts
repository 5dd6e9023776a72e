import { initTfBackend } from "../backend/tf-backend.js";
import { EngineError } from "../base/engine-error.js";
import { ACTION_FEATURES, featureCount, STATE_FEATURES } from "../policy/product-model.js";
import { RlPolicy } from "../policy/rl-policy.js";
import type { SafetyReport } from "../policy/safe-improvement.js";
import type { RuleParams } from "../rule/rule-price.js";
import {
  ARTIFACT_FORMAT,
  ARTIFACT_FORMAT_VERSION,
  type PolicyManifest,
  PolicyManifestSchema,
  type PolicyMetrics,
  SUPPORTED_FORMAT_VERSIONS,
  type TensorEntry,
} from "./policy-manifest.js";

/**
 * Version of the engine that wrote an artifact, kept in its manifest for the operator. Loading does not compare
 * it: what decides is the manifest's format version (`SUPPORTED_FORMAT_VERSIONS`) and its feature spec.
 */
export const ENGINE_VERSION = "0.2.0";

/**
 * A policy artifact: a JSON manifest and one binary file of little-endian float32 blocks. It carries no id and
 * no checksum: the policy store assigns the model id and version and verifies the bytes it hands back.
 */
export interface PolicyArtifact {
  readonly manifest: PolicyManifest;
  readonly weights: Uint8Array;
}

export interface SerializeOptions {
  /** Exact evaluations under the fitted model (see `evaluateUnderModel`); null fields when omitted. */
  readonly margins?: { readonly policy: number; readonly rule: number | null };
  /** Default: now. */
  readonly createdAt?: Date;
  /** The safe-improvement check's findings, kept in the metrics. */
  readonly safety?: SafetyReport;
  /** Rule parameters to keep per product id (those of rule-priced products are always kept). */
  readonly ruleParams?: ReadonlyMap<string, RuleParams>;
}

/** Writes a trained policy as an artifact. Plain data only: no code is ever stored or evaluated. */
export function serializeArtifact(policy: RlPolicy, options: SerializeOptions = {}): PolicyArtifact {
  const data = policy.data;
  const blocks: { name: string; shape: number[]; values: Float32Array }[] = [];
  const sizes = [policy.network.shape.inputs, ...data.hidden, 2 + policy.network.shape.actions];
  data.weights.forEach((values, i) => {
    const layer = Math.floor(i / 2);
    const shape = i % 2 === 0 ? [sizes[layer]!, sizes[layer + 1]!] : [sizes[layer + 1]!];
    blocks.push({ name: `layer${layer}/${i % 2 === 0 ? "kernel" : "bias"}`, shape, values });
  });
  data.products.forEach((p, i) => {
    blocks.push({ name: `rates/${i}`, shape: [p.setup.horizon, p.setup.prices.length], values: p.rates });
  });
  const total = blocks.reduce((s, b) => s + b.values.length * 4, 0);
  const weights = new Uint8Array(total);
  const view = new DataView(weights.buffer);
  const tensors: TensorEntry[] = [];
  let offset = 0;
  for (const b of blocks) {
    tensors.push({ name: b.name, shape: b.shape, offset, length: b.values.length });
    for (let k = 0; k < b.values.length; k++) view.setFloat32(offset + 4 * k, b.values[k]!, true);
    offset += b.values.length * 4;
  }
  const t = data.training;
  const margins = options.margins;
  const metrics: PolicyMetrics = {
    policyMargin: margins?.policy ?? null,
    ruleMargin: margins?.rule ?? null,
    upliftPct:
      margins && margins.rule !== null && margins.rule > 0 ? 100 * (margins.policy / margins.rule - 1) : null,
    trainingSeconds: t.seconds,
    episodes: t.episodes,
    sampledStates: t.sampledStates,
    gradientSteps: t.gradientSteps,
    finalLoss: t.finalLoss,
    networkEstimatedMargin: t.estimatedValue,
    ...(options.safety === undefined ? {} : { safety: options.safety }),
  };
  const manifest: PolicyManifest = {
    format: ARTIFACT_FORMAT,
    formatVersion: ARTIFACT_FORMAT_VERSION,
    companyId: data.companyId,
    engineVersion: ENGINE_VERSION,
    createdAt: (options.createdAt ?? new Date()).toISOString(),
    algorithm: "fitted-q-iteration",
    backend: t.backend,
    featureSpec: {
      stateFeatures: [...STATE_FEATURES],
      actionFeatures: [...ACTION_FEATURES],
      inputs: featureCount(data.actionSpec),
    },
    actionSpec: { multipliers: [...data.actionSpec.multipliers], shutoff: data.actionSpec.shutoff },
    network: { hidden: [...data.hidden], activation: "relu", outputs: 2 + policy.network.shape.actions },
    products: data.products.map((p, i) => {
      const id = p.setup.productId;
      const fallback = data.ruleFallbacks?.[id];
      const rule = fallback ?? options.ruleParams?.get(id);
      return {
        setup: p.setup,
        referencePrice: p.referencePrice,
        ratesTensor: `rates/${i}`,
        pricedBy: fallback === undefined ? ("rl" as const) : ("rule" as const),
        ...(rule === undefined ? {} : { ruleParams: { ...rule, weekdayIndex: [...rule.weekdayIndex] } }),
      };
    }),
    demandModel: (data.demandModel ?? null) as PolicyManifest["demandModel"],
    training: { config: t.config, seed: t.config.seed },
    metrics,
    tensors,
  };
  // Round-trip through JSON so that what we return is exactly what a store will hand back.
  return { manifest: PolicyManifestSchema.parse(JSON.parse(JSON.stringify(manifest))), weights };
}

/**
 * A manifest of our format whose version this engine cannot read is incompatible, not invalid: checked before the
 * schema, which only describes the formats in range.
 */
function refuseUnsupportedFormat(manifest: unknown): void {
  if (manifest === null || typeof manifest !== "object") return;
  const { format, formatVersion } = manifest as { format?: unknown; formatVersion?: unknown };
  if (format !== ARTIFACT_FORMAT || typeof formatVersion !== "number" || !Number.isInteger(formatVersion))
    return;
  const { min, max } = SUPPORTED_FORMAT_VERSIONS;
  if (formatVersion < min || formatVersion > max) {
    throw new EngineError(
      "artifact_incompatible",
      `artifact format ${formatVersion}; engine ${ENGINE_VERSION} reads formats ${min} to ${max}`,
    );
  }
}

/**
 * Everything `loadPolicyArtifact` refuses, checked without TensorFlow and without decoding a weight: the manifest's
 * schema, the engine and features it was written for, and every tensor's place and size in the weights (network
 * layers included). A thread that only routes artifacts (the server's, when a planning thread deserializes) checks
 * with this, so an artifact that would not load counts as unreadable before any thread sees it. Returns the parsed
 * manifest. Throws `EngineError` like `loadPolicyArtifact`.
 */
export function checkPolicyArtifact(artifact: { manifest: unknown; weights: Uint8Array }): PolicyManifest {
  refuseUnsupportedFormat(artifact.manifest);
  const parsed = PolicyManifestSchema.safeParse(artifact.manifest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineError(
      "artifact_invalid",
      `manifest: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
    );
  }
  const m = parsed.data;
  checkManifestFits(m, artifact.weights);
  return m;
}

/**
 * The checks of `checkPolicyArtifact` after the schema: the engine's features, and every tensor's place and size
 * in the weights (network layers included).
 */
function checkManifestFits(m: PolicyManifest, weights: Uint8Array): void {
  if (
    m.featureSpec.stateFeatures.join() !== STATE_FEATURES.join() ||
    m.featureSpec.actionFeatures.join() !== ACTION_FEATURES.join()
  ) {
    throw new EngineError(
      "artifact_incompatible",
      `artifact of engine ${m.engineVersion} has other features than engine ${ENGINE_VERSION}`,
    );
  }
  const byName = new Map<string, TensorEntry>();
  for (const t of m.tensors) {
    const expected = t.shape.reduce((a, b) => a * b, 1);
    if (expected !== t.length || t.offset + 4 * t.length > weights.byteLength || byName.has(t.name)) {
      throw new EngineError("artifact_invalid", `tensor ${t.name} does not fit the weights file`);
    }
    byName.set(t.name, t);
  }
  const sizeOf = (name: string): number => {
    const t = byName.get(name);
    if (t === undefined) throw new EngineError("artifact_invalid", `missing tensor ${name}`);
    return t.length;
  };
  if (m.products.length === 0) throw new EngineError("artifact_invalid", "the policy has no products");
  const sizes = [
    featureCount(m.actionSpec),
    ...m.network.hidden,
    2 + m.actionSpec.multipliers.length + (m.actionSpec.shutoff ? 1 : 0),
  ];
  for (let l = 0; l + 1 < sizes.length; l++) {
    const fanIn = sizes[l] ?? 0;
    const fanOut = sizes[l + 1] ?? 0;
    if (sizeOf(`layer${l}/kernel`) !== fanIn * fanOut || sizeOf(`layer${l}/bias`) !== fanOut) {
      throw new EngineError("artifact_invalid", `weights do not fit the network: layer ${l}`);
    }
  }
  for (const p of m.products) {
    if (sizeOf(p.ratesTensor) !== p.setup.horizon * p.setup.prices.length) {
      throw new EngineError("artifact_invalid", `rates of ${p.setup.productId} have the wrong size`);
    }
    if (p.pricedBy === "rule" && p.ruleParams === undefined) {
      throw new EngineError(
        "artifact_invalid",
        `${p.setup.productId} is priced by the rule but has no ruleParams`,
      );
    }
  }
}

/** Whether this machine stores a float32 little-endian, as the weights file does. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A tensor's values: a copy of its bytes where the machine's layout is the file's, else decoded one by one. */
function tensorValues(weights: Uint8Array, offset: number, length: number): Float32Array {
  const start = weights.byteOffset + offset;
  if (LITTLE_ENDIAN) return new Float32Array(weights.buffer.slice(start, start + 4 * length));
  const view = new DataView(weights.buffer, start, 4 * length);
  const values = new Float32Array(length);
  for (let k = 0; k < length; k++) values[k] = view.getFloat32(4 * k, true);
  return values;
}

/**
 * Rebuilds a policy from an artifact whose bytes the caller has verified (the policy store does). Throws
 * `EngineError`: `artifact_invalid` (manifest fails its schema or disagrees with the weights' layout),
 * `artifact_incompatible` (a manifest format outside `SUPPORTED_FORMAT_VERSIONS`, or other features); see
 * `checkPolicyArtifact`. Artifacts of older engines whose format is in the range load.
 */
export async function loadPolicyArtifact(artifact: {
  manifest: unknown;
  weights: Uint8Array;
}): Promise<RlPolicy> {
  return buildPolicy(checkPolicyArtifact(artifact), artifact.weights);
}

/**
 * `loadPolicyArtifact` of an artifact whose manifest `checkPolicyArtifact` returned (a planning thread's, which the
 * server checked before sending): the schema is not parsed again (~15 ms a policy in the nightly batch's threads),
 * the manifest's fit to the weights still is.
 */
export async function loadCheckedPolicyArtifact(artifact: {
  manifest: PolicyManifest;
  weights: Uint8Array;
}): Promise<RlPolicy> {
  checkManifestFits(artifact.manifest, artifact.weights);
  return buildPolicy(artifact.manifest, artifact.weights);
}

async function buildPolicy(m: PolicyManifest, weights: Uint8Array): Promise<RlPolicy> {
  const byName = new Map<string, Float32Array>();
  for (const t of m.tensors) byName.set(t.name, tensorValues(weights, t.offset, t.length));
  const need = (name: string): Float32Array => {
    const v = byName.get(name);
    if (v === undefined) throw new EngineError("artifact_invalid", `missing tensor ${name}`);
    return v;
  };
  const layers = m.network.hidden.length + 1;
  const networkWeights: Float32Array[] = [];
  for (let l = 0; l < layers; l++) networkWeights.push(need(`layer${l}/kernel`), need(`layer${l}/bias`));
  const products = m.products.map((p) => ({
    setup: p.setup,
    referencePrice: p.referencePrice,
    rates: need(p.ratesTensor),
  }));
  const ruleFallbacks: Record<string, RuleParams> = {};
  for (const p of m.products) {
    if (p.pricedBy === "rule" && p.ruleParams !== undefined) ruleFallbacks[p.setup.productId] = p.ruleParams;
  }
  // The same backend as training, so that a round trip prices identically.
  await initTfBackend();
  try {
    return RlPolicy.create({
      companyId: m.companyId,
      actionSpec: m.actionSpec,
      hidden: m.network.hidden,
      products,
      weights: networkWeights,
      demandModel: m.demandModel,
      ruleFallbacks,
      training: {
        config: m.training.config,
        backend: m.backend,
        seconds: m.metrics.trainingSeconds,
        episodes: m.metrics.episodes,
        sampledStates: m.metrics.sampledStates,
        gradientSteps: m.metrics.gradientSteps,
        finalLoss: m.metrics.finalLoss,
        estimatedValue: m.metrics.networkEstimatedMargin,
      },
    });
  } catch (error) {
    throw new EngineError("artifact_invalid", `weights do not fit the network: ${(error as Error).message}`);
  }
}
