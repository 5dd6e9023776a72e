import {
  type ActiveArtifact,
  addDays,
  daysBetween,
  type PackedPlan,
  type PlannedPrice,
  unpackPlan,
} from "@pricing/engine";
import { ApiError, COMPUTE_MAX_DAYS, type ComputeResponse, type Run } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import type { NewRun } from "../repositories/runs.js";
import { servedPolicy } from "./active-policy.js";
import { fitSource, loadCompanySnapshot } from "./company-snapshot.js";

/** A company's prices over a date range with its active source, not yet persisted. */
export interface CompanyPlan {
  company: CompanyRow;
  today: string;
  startDate: string;
  endDate: string;
  source: ComputeResponse["source"];
  modelId: string | null;
  recommendations: ComputeResponse["recommendations"];
  /**
   * The plan's columns as the planning thread sent them (null when its rows did not pack): persisting reads them,
   * and `recommendations` is built only when read, so a nightly run never builds its ~9,000 items.
   */
  packed?: PackedPlan | null;
}

export interface PlanRange {
  startDate?: string;
  endDate?: string;
  /** Plan with each item's `explanation` (what a persisted run stores, and a dry run explaining asks). */
  explain?: boolean;
  /** Aborted: the plan is cancelled (see `PlanPool.plan`) and this rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The operation's today (its caller's, decided once); by default the company's today now. */
  today?: string;
  /** Whose plan it is (a partner): the planning threads take waiting plans round-robin between queues. */
  queue?: string;
  /** Called with the plan's size once it is known, before anything is planned; throws to refuse the plan. */
  admit?: (size: { products: number; days: number }) => void;
}

/**
 * Prices the company for [start, end] (defaults: its today .. today + `pricing.runDays` - 1; both dates within
 * today .. today + `COMPUTE_MAX_DAYS`) with the active source, through the engine's plan. What compute and the nightly run share.
 * The plan runs in one of `ctx.planning`'s threads (the policy's forward passes, the demand fit): this thread only
 * loads the snapshot and resolves which checked artifact serves.
 */
export async function planCompany(
  ctx: ServerContext,
  company: CompanyRow,
  range: PlanRange = {},
): Promise<CompanyPlan> {
  const snapshot = await loadCompanySnapshot(ctx, company, range.today);
  const today = snapshot.today;
  const startDate = range.startDate ?? today;
  const endDate = range.endDate ?? addDays(startDate, ctx.config.pricing.runDays - 1);
  // The bounds that depend on the company's today; the schema has checked the range's own length.
  const lastDay = addDays(today, COMPUTE_MAX_DAYS);
  for (const [field, date] of [
    ["start_date", startDate],
    ["end_date", endDate],
  ] as const) {
    if (date < today) {
      throw new ApiError("validation_error", `${field} must not be before the company's today (${today}).`);
    }
    if (date > lastDay) {
      throw new ApiError(
        "validation_error",
        `${field} must be at most ${COMPUTE_MAX_DAYS} days after the company's today (${lastDay}).`,
      );
    }
  }
  if (daysBetween(startDate, endDate) >= COMPUTE_MAX_DAYS) {
    throw new ApiError(
      "validation_error",
      `end_date: a computed range spans at most ${COMPUTE_MAX_DAYS} days.`,
    );
  }
  range.admit?.({ products: snapshot.products.length, days: daysBetween(startDate, endDate) + 1 });
  const { active } = await servedPolicy(ctx, company);
  // The plan walks from today: a promotion planned for any of its days moves that day's units (DESIGN.md §9).
  const promotions = await ctx.repositories.sales.plannedPromotions(company.company_id, today, endDate);
  const artifact: ActiveArtifact =
    active.source === "rule"
      ? { source: "rule", modelId: null, artifact: null }
      : { source: active.source, modelId: active.modelId, artifact: active.policy };
  // Planned in the engine's planning threads, never on this event loop.
  const planned = await ctx.planning.planPacked(
    {
      today,
      startDate,
      endDate,
      products: snapshot.products,
      active: artifact,
      fit: fitSource(snapshot),
      ...(range.explain ? { explain: true } : {}),
      ...(promotions.length === 0 ? {} : { promotions }),
      learning: {
        history: snapshot.history,
        exploration: company.exploration,
        seed: company.company_id,
        // The kill switch serves the rule alone; otherwise the closed loop's learner, refitted on every plan.
        online: company.force_rule !== 1,
      },
    },
    {
      ...(range.signal === undefined ? {} : { signal: range.signal }),
      ...(range.queue === undefined ? {} : { queue: range.queue }),
    },
  );
  let recommendations: ComputeResponse["recommendations"] | undefined;
  return {
    company,
    today,
    startDate,
    endDate,
    source: active.source,
    modelId: active.modelId,
    get recommendations() {
      recommendations ??= (Array.isArray(planned) ? planned : unpackPlan(planned)).map(toRecommendation);
      return recommendations;
    },
    packed: Array.isArray(planned) ? null : planned,
  };
}

/** The API's item: p10/p90 and `exploratory` are null where the plan gave none; `explanation` only when planned. */
function toRecommendation(p: PlannedPrice): ComputeResponse["recommendations"][number] {
  return {
    product_id: p.product_id,
    date: p.date,
    price: p.price,
    currency: p.currency,
    base_price: p.base_price,
    rule_price: p.rule_price,
    expected_units: p.expected_units,
    expected_revenue: p.expected_revenue,
    source: p.source,
    model_id: p.model_id,
    override_id: p.override_id ?? null,
    lowest_price_30d: p.lowest_price_30d,
    expected_units_p10: p.expected_units_p10 ?? null,
    expected_units_p90: p.expected_units_p90 ?? null,
    exploratory: p.exploratory ?? null,
    ...(p.explanation === undefined
      ? {}
      : {
          explanation: {
            ...p.explanation,
            observed_price_range: [
              p.explanation.observed_price_range[0],
              p.explanation.observed_price_range[1],
            ],
          },
        }),
  };
}

/**
 * Persists a plan as a run, with the explanations it was planned with (`explain`: a run that should answer
 * `explain=true` is planned with them, since a persisted run never changes) (keeping the newest `pricing.runsKeep` nightly and `pricing.onDemandRunsKeep` on-demand
 * runs); null when it is a nightly run and that day's
 * already exists.
 */
export async function persistPlan(
  ctx: ServerContext,
  plan: CompanyPlan,
  kind: NewRun["kind"],
): Promise<Run | null> {
  const run = await ctx.repositories.runs.insert(
    {
      companyId: plan.company.company_id,
      kind,
      asOf: plan.today,
      createdAt: ctx.clock().toISOString(),
      source: plan.source,
      modelId: plan.modelId,
      startDate: plan.startDate,
      endDate: plan.endDate,
      recommendations: plan.packed ?? plan.recommendations,
    },
    kind === "nightly" ? ctx.config.pricing.runsKeep : ctx.config.pricing.onDemandRunsKeep,
  );
  await ctx.webhooks.runPersisted(run);
  return run;
}
