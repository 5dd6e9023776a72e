import type { PolicyManifest } from "../artifact/policy-manifest.js";
import { type FittedDemand, fitDemand, type ProductHint } from "../demand/fit-demand.js";
import type { Exploration } from "../learn/exploration-range.js";
import { planWithLearning } from "../learn/learning-plan.js";
import { type OnlineLearnerInput, onlineLearner } from "../learn/online-learner.js";
import { type ActivePolicy, type PlanInput, type PlannedPrice, planPrices } from "../plan/company-plan.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import type { SalesRow } from "../sales/sales-row.js";

/**
 * A checked artifact (`checkPolicyArtifact`) as a planning thread receives it: the thread deserializes it once and
 * keeps the policy under `key`, so the bytes cross to a thread once, not with every plan.
 */
export interface PlanArtifact {
  /** The model id and the weights' sha256: an artifact never changes under one key. */
  readonly key: string;
  readonly manifest: PolicyManifest;
  readonly weights: Uint8Array;
}

/** `ActivePolicy` with an artifact reference in place of the loaded policy. */
export type ActiveArtifact =
  | { readonly source: "approved" | "latest"; readonly modelId: string; readonly artifact: PlanArtifact }
  | { readonly source: "rule"; readonly modelId: null; readonly artifact: null };

/** What the plan's demand model is fitted from (in the thread, and only when the plan asks for it). */
export interface FitSource {
  readonly history: readonly SalesRow[];
  readonly products: readonly ProductHint[];
}

/**
 * `PlanInput` as structured-cloneable data: the policy object replaced by an artifact reference, the lazy fit by
 * what it is fitted from (null: no fit, the history's daily volume), the online learner by its input. Every other
 * field of `PlanInput` passes through as it is.
 */
export type PlanJob = Omit<PlanInput, "active" | "fit" | "learner"> & {
  readonly active: ActiveArtifact;
  readonly fit: FitSource | null;
  readonly learner?: OnlineLearnerInput;
  /** The company's learning: given, the job is planned by `planWithLearning` (what the server plans). */
  readonly learning?: LearningJob;
};

/** `LearningPlanInput`'s fields beyond `PlanInput`'s, as data. */
export interface LearningJob {
  readonly history: readonly SalesRow[];
  readonly exploration: Exploration;
  readonly seed: string;
  readonly online: boolean;
  readonly priceLists?: Readonly<Record<string, readonly number[]>>;
}

/**
 * The `PlanInput` a job stands for, given its artifact's policy (null for the rule): what a planning thread hands
 * to `planPrices`, and what a caller runs in its own thread to compare (tests, benchmarks).
 */
export function planInputOf(
  job: Omit<PlanJob, "active"> & { readonly active: Pick<ActiveArtifact, "source" | "modelId"> },
  policy: RlPolicy | null,
): PlanInput {
  const { active, fit: source, learner, ...rest } = job;
  const resolved: ActivePolicy =
    active.source === "rule" || active.modelId === null || policy === null
      ? { source: "rule", modelId: null, policy: null }
      : { source: active.source, modelId: active.modelId, policy };
  let fit: FittedDemand | null | undefined;
  return {
    ...rest,
    active: resolved,
    fit: () => {
      if (fit === undefined) fit = source === null ? null : fitDemand(source.history, source.products);
      return fit;
    },
    ...(learner === undefined ? {} : { learner: onlineLearner(learner) }),
  };
}

/**
 * The prices of a job, given its artifact's policy (null for the rule): `planWithLearning` for a job with the
 * company's learning, else `planPrices`. What a planning thread runs, and what a caller runs in its own thread to
 * compare.
 */
export function runPlanJob(
  job: Omit<PlanJob, "active"> & { readonly active: Pick<ActiveArtifact, "source" | "modelId"> },
  policy: RlPolicy | null,
): PlannedPrice[] {
  const { learning, ...rest } = job;
  const input = planInputOf(rest, policy);
  if (learning === undefined) return planPrices(input);
  return planWithLearning({
    today: input.today,
    startDate: input.startDate,
    endDate: input.endDate,
    products: input.products,
    active: input.active,
    ...(input.explain ? { explain: true } : {}),
    ...(input.promotions === undefined ? {} : { promotions: input.promotions }),
    ...learning,
  });
}
