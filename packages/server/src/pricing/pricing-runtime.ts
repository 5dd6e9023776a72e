import { addDays, daysBetween, type FittedDemand, planPrices, type RlPolicy } from "@pricing/engine";
import {
  ApiError,
  COMPUTE_MAX_DAYS,
  type ComputeRequest,
  type ComputeResponse,
  type GetRecommendationsQuery,
  type ModelReport,
  type PricingService,
  type RecommendationsResponse,
  type Run,
  recommendationsResponseSchema,
  type TrainResponse,
} from "@pricing/http-adapter";
import {
  createPolicyStore,
  isPolicyStoreError,
  ModelIdStaleError,
  type PolicyResolver,
  type PolicyStore,
} from "@pricing/policy-store";
import { overrideConfig, type PricingSettings, type PricingSettingsInput } from "../config.js";
import type { CompanyRow, RunRow } from "../db/schema.js";
import type { ServerContext } from "../server-context.js";
import { createPolicyResolver, numericMetrics, toModelReport } from "./active-policy.js";
import { type CompanySnapshot, fitSnapshot, loadCompanySnapshot } from "./company-snapshot.js";
import { companyToday } from "./company-today.js";
import { createResponseCache } from "./response-cache.js";
import { createRunsStore, type NewRun, type RunsStore, toRun } from "./runs-store.js";
import { createTrainingCoordinator, type TrainingCoordinator } from "./training-coordinator.js";

export interface PricingRuntimeOptions {
  /** On top of the context's `config.pricing`, validated by the same schema (tests shorten the budgets). */
  settings?: PricingSettingsInput;
  /** Default: a folder store at `settings.artifactsDir`. */
  store?: PolicyStore;
}

/** A computed (not yet persisted) set of recommendations for one company. */
export interface ComputedRun {
  company: CompanyRow;
  today: string;
  startDate: string;
  endDate: string;
  source: ComputeResponse["source"];
  modelId: string | null;
  recommendations: ComputeResponse["recommendations"];
}

/**
 * The V2 pricing operations over the server context: the `PricingService` the adapter calls, plus what the CLI
 * and the nightly batch share with it (compute, runs, policy store, training coordinator).
 */
export interface PricingRuntime {
  settings: PricingSettings;
  store: PolicyStore;
  runs: RunsStore;
  policies: PolicyResolver<RlPolicy>;
  training: TrainingCoordinator;
  service: PricingService;
  /** Company row or 404 `company_not_found`. */
  company(companyId: string): Promise<CompanyRow>;
  /** Prices the company for [start, end] (defaults: today .. today + runDays - 1) with the active source. */
  computeRun(company: CompanyRow, range?: { startDate?: string; endDate?: string }): Promise<ComputedRun>;
  /** Persists a computed run (keeping `settings.runsKeep`); null when a nightly run of that day already exists. */
  persistRun(computed: ComputedRun, kind: NewRun["kind"]): Promise<Run | null>;
  /** Trains, saves and commits an artifact; what `POST /v2/model/train` and `pricing train` do. */
  trainCompany(
    companyId: string,
    autoApprove: boolean,
    onProgress?: (fraction: number) => void,
  ): Promise<TrainResponse>;
  promote(companyId: string, modelId: string): Promise<ModelReport>;
  modelReport(companyId: string): Promise<ModelReport>;
  close(): void;
}

export function createPricingRuntime(
  ctx: ServerContext,
  options: PricingRuntimeOptions = {},
): PricingRuntime {
  const settings = options.settings
    ? overrideConfig(ctx.config, { pricing: options.settings }).pricing
    : ctx.config.pricing;
  const store = options.store ?? createPolicyStore({ root: settings.artifactsDir, clock: ctx.clock });
  const runs = createRunsStore(ctx.db);
  const policies = createPolicyResolver(store);
  const training = createTrainingCoordinator({ expectedSeconds: settings.trainSeconds + 5 });
  const snapshotOptions = { horizonDays: settings.trainHorizonDays };
  const responses = createResponseCache();

  async function company(companyId: string): Promise<CompanyRow> {
    const row = await ctx.companies.get(companyId);
    if (!row) throw new ApiError("company_not_found");
    return row;
  }

  async function snapshotOf(row: CompanyRow): Promise<CompanySnapshot> {
    return loadCompanySnapshot(ctx, row, companyToday(ctx.clock(), row.timezone), snapshotOptions);
  }

  async function computeRun(row: CompanyRow, range: { startDate?: string; endDate?: string } = {}) {
    const snapshot = await snapshotOf(row);
    const today = snapshot.today;
    const startDate = range.startDate ?? today;
    const endDate = range.endDate ?? addDays(startDate, settings.runDays - 1);
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
    const { active } = await policies.resolve(row.company_id);
    let fit: FittedDemand | null | undefined;
    const recommendations = planPrices({
      today,
      products: snapshot.products,
      active,
      fit: () => {
        if (fit === undefined) fit = snapshot.history.length > 0 ? fitSnapshot(snapshot).fit : null;
        return fit;
      },
      startDate,
      endDate,
    });
    return {
      company: row,
      today,
      startDate,
      endDate,
      source: active.source,
      modelId: active.modelId,
      recommendations,
    };
  }

  async function persistRun(computed: ComputedRun, kind: NewRun["kind"]): Promise<Run | null> {
    return runs.insert(
      {
        companyId: computed.company.company_id,
        kind,
        asOf: computed.today,
        createdAt: ctx.clock().toISOString(),
        source: computed.source,
        modelId: computed.modelId,
        startDate: computed.startDate,
        endDate: computed.endDate,
        recommendations: computed.recommendations,
      },
      settings.runsKeep,
    );
  }

  async function runAt(input: GetRecommendationsQuery): Promise<RunRow> {
    const run = await runs.atOffset(input.company_id, input.runs_ago);
    if (!run) throw new ApiError("no_run_at_offset");
    return run;
  }

  async function readRun(input: GetRecommendationsQuery, run: RunRow): Promise<RecommendationsResponse> {
    const recommendations = await runs.recommendations(run.run_id, {
      startDate: input.start_date,
      endDate: input.end_date,
      productId: input.product_id,
    });
    return { company_id: input.company_id, run: toRun(run), recommendations };
  }

  async function getRecommendations(input: GetRecommendationsQuery): Promise<RecommendationsResponse> {
    return readRun(input, await runAt(input));
  }

  async function modelReport(companyId: string): Promise<ModelReport> {
    return toModelReport((await policies.resolve(companyId)).report);
  }

  async function trainCompany(
    companyId: string,
    autoApprove: boolean,
    onProgress?: (fraction: number) => void,
  ): Promise<TrainResponse> {
    const row = await company(companyId);
    return training.exclusive(companyId, async (signal) => {
      const snapshot = await snapshotOf(row);
      const artifact = await training.train(
        {
          companyId,
          products: snapshot.products.map((p) => ({ setup: p.setup, basePrice: p.product.base_price })),
          history: snapshot.history,
          minHistoryDays: settings.minHistoryDays,
          config: { seed: settings.trainSeed, maxSeconds: settings.trainSeconds },
        },
        signal,
        onProgress,
      );
      // Save then commit: a crash or a disconnect between them leaves an orphan artifact no slot points at.
      const saved = await store.save({
        companyId,
        manifest: artifact.manifest,
        weights: artifact.weights,
      });
      const committed = await store.commitTraining({ companyId, modelId: saved.model_id, autoApprove });
      // Housekeeping only: the store never deletes what a slot or a rollback needs, so a failure here is harmless.
      await store.retain(companyId, { keep: settings.artifactsKeep }).catch((error: unknown) => {
        ctx.logger?.warn({ err: error, company_id: companyId }, "artifact retention failed");
      });
      return {
        company_id: companyId,
        model_id: saved.model_id,
        version: saved.version,
        trained_at: saved.trained_at,
        auto_approved: autoApprove,
        slots: {
          latest: committed.slots.latest?.model_id ?? null,
          approved: committed.slots.approved?.model_id ?? null,
        },
        metrics: numericMetrics(artifact.manifest.metrics),
      };
    });
  }

  async function promote(companyId: string, modelId: string): Promise<ModelReport> {
    await company(companyId);
    try {
      await store.promote(companyId, modelId);
    } catch (error) {
      if (error instanceof ModelIdStaleError) throw new ApiError("model_id_stale");
      if (isPolicyStoreError(error) && error.code === "contention") {
        throw new ApiError("unavailable", "The model slots are busy; retry shortly.", {
          headers: { "Retry-After": "1" },
        });
      }
      throw error;
    }
    return modelReport(companyId);
  }

  const service: PricingService = {
    async listRuns(input) {
      await company(input.company_id);
      const { total, runs: list } = await runs.list(input.company_id, input.limit, input.offset);
      return { company_id: input.company_id, total, runs: list };
    },
    getRecommendations,
    async getRecommendationsJson(input) {
      const run = await runAt(input);
      const key = [run.run_id, input.start_date ?? "", input.end_date ?? "", input.product_id ?? ""].join(
        "|",
      );
      let body = responses.get(key);
      if (body === undefined) {
        const response = await readRun(input, run);
        // Checked once here, since the route sends these bytes without its serializer.
        body = Buffer.from(JSON.stringify(recommendationsResponseSchema.parse(response)));
        responses.set(key, body);
      }
      return body;
    },
    async compute(input: ComputeRequest) {
      const row = await company(input.company_id);
      const computed = await computeRun(row, {
        ...(input.start_date === undefined ? {} : { startDate: input.start_date }),
        ...(input.end_date === undefined ? {} : { endDate: input.end_date }),
      });
      const run = input.dry_run ? null : await persistRun(computed, "on_demand");
      return {
        company_id: row.company_id,
        persisted: run !== null,
        run,
        source: computed.source,
        model_id: computed.modelId,
        recommendations: computed.recommendations,
      };
    },
    async train(input) {
      return trainCompany(input.company_id, input.auto_approve);
    },
    async promote(input) {
      return promote(input.company_id, input.model_id);
    },
    async getModel(input) {
      await company(input.company_id);
      return modelReport(input.company_id);
    },
  };

  return {
    settings,
    store,
    runs,
    policies,
    training,
    service,
    company,
    computeRun,
    persistRun,
    trainCompany,
    promote,
    modelReport,
    close() {
      training.abortAll();
      policies.close();
    },
  };
}
