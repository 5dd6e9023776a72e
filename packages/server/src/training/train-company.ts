import {
  type CompanyTrainingData,
  type PolicyArtifact,
  type PolicyMetrics,
  trainInWorker,
} from "@pricing/engine";
import type { TrainResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "../services/company-lookup.js";
import { loadCompanySnapshot } from "../services/company-snapshot.js";
import { numericMetrics } from "../services/numeric-metrics.js";

export interface TrainCompanyPayload {
  companyId: string;
  /** Also promote the new artifact to approved, in the same commit. */
  autoApprove: boolean;
  /** With `autoApprove`: approve only when the trained artifact's metrics pass this (the nightly safety gate). */
  approveIf?: (metrics: PolicyMetrics) => boolean;
  /** Who asked (a partner id, "operator"), recorded in the slot event. */
  by?: string;
  /** The day the history ends before; by default the company's today when the training loads it. */
  today?: string;
}

export interface TrainCompanyHooks {
  /** Training progress, 0..1. */
  onProgress?: (fraction: number) => void;
  /**
   * Called between save and commit with the answer the commit will give: the operation records it, so that an
   * attempt retried after a crash past the commit finishes the operation instead of training again. Throwing
   * cancels the commit (the saved artifact stays an orphan for `store gc`).
   */
  beforeCommit?: (pending: TrainResponse) => Promise<void>;
}

/** Progress crosses from the training thread at most this often, so a long training leaves the event loop alone. */
const PROGRESS_EVERY_MS = 200;

/** Trains in the engine's worker thread; aborting the signal terminates the thread and rejects with its reason. */
function trainInThread(
  data: CompanyTrainingData,
  signal: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<PolicyArtifact> {
  return trainInWorker(data, {
    signal,
    progressEveryMs: PROGRESS_EVERY_MS,
    ...(onProgress === undefined
      ? {}
      : { onProgress: (p) => onProgress(p.totalSteps > 0 ? p.step / p.totalSteps : 0) }),
  });
}

/**
 * The `train-company` job: fit, train in a worker thread, save, commit, retain. Singleton per company
 * (`ctx.training`: a second run while one holds the slot gets 409 `training_in_progress`). Running it twice is
 * harmless: each run commits a new version, and the same data and seed train the same policy.
 */
export async function trainCompany(
  ctx: ServerContext,
  payload: TrainCompanyPayload,
  hooks: TrainCompanyHooks = {},
): Promise<TrainResponse> {
  const { companyId, by } = payload;
  const company = await findCompany(ctx, companyId);
  const settings = ctx.config.pricing;
  const store = ctx.policies.store;
  return ctx.metrics.training((claimed) =>
    ctx.training.exclusive(companyId, async (signal) => {
      claimed(signal);
      // Minutes of training could never be committed over an unreadable slot record: refuse before.
      await store.getSlots(companyId);
      const snapshot = await loadCompanySnapshot(ctx, company, payload.today);
      const artifact = await trainInThread(
        {
          companyId,
          products: snapshot.products.map((p) => ({ setup: p.setup, basePrice: p.product.base_price })),
          history: snapshot.history,
          minHistoryDays: settings.minHistoryDays,
          config: { seed: settings.trainSeed, maxSeconds: settings.trainSeconds },
        },
        signal,
        hooks.onProgress,
      );
      const autoApprove =
        payload.autoApprove &&
        (payload.approveIf === undefined || payload.approveIf(artifact.manifest.metrics));
      // Save then commit: a crash or a disconnect between them leaves an orphan artifact no slot points at.
      const saved = await store.save({ companyId, manifest: artifact.manifest, weights: artifact.weights });
      const metrics = numericMetrics(artifact.manifest.metrics);
      const answer = (slots: TrainResponse["slots"]): TrainResponse => ({
        company_id: companyId,
        model_id: saved.model_id,
        version: saved.version,
        trained_at: saved.trained_at,
        auto_approved: autoApprove,
        slots,
        metrics,
      });
      if (hooks.beforeCommit) {
        const before = await store.getSlots(companyId);
        await hooks.beforeCommit(
          answer({
            latest: saved.model_id,
            approved: autoApprove ? saved.model_id : (before.approved?.model_id ?? null),
          }),
        );
      }
      const committed = await store.commitTraining({
        companyId,
        modelId: saved.model_id,
        autoApprove,
        ...(by === undefined ? {} : { by }),
      });
      ctx.metrics.sources.set(companyId, committed.slots.approved ? "approved" : "latest");
      await ctx.webhooks.slotsChanged(companyId, committed);
      // Housekeeping only: the store never deletes what a slot or a rollback needs, so a failure here is harmless.
      await store.retain(companyId, { keep: settings.artifactsKeep }).catch((error: unknown) => {
        ctx.logger.warn({ err: error, company_id: companyId }, "artifact retention failed");
      });
      return answer({
        latest: committed.slots.latest?.model_id ?? null,
        approved: committed.slots.approved?.model_id ?? null,
      });
    }),
  );
}
