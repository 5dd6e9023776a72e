import { addDays } from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import { companyToday } from "../services/company-today.js";
import { trainHere } from "./train-model.js";

export type RefreshOutcome =
  | { status: "refreshed"; model_id: string; version: number; auto_approved: boolean }
  | {
      status: "skipped";
      reason: "no_model" | "no_new_sales" | "insufficient_history" | "training_in_progress";
    };

/**
 * The nightly learning step, before the company's nightly run (DESIGN §8): when sales for days since the `latest`
 * model was trained have arrived, a new version is trained on the whole history (those sales included) into
 * `latest`, and approved in the same commit when it passes the safety gate (`passesSafetyGate`) unless the company
 * turned `auto_approve_updates` off. The closed loop measured this schedule: the online learner refits on every
 * day's sales (it does so inside every plan), so the model is refreshed on every night that brought sales. A company
 * without a model is left to its operator's first training. A refresh that cannot run (thin history, a training
 * in progress) is skipped; the caller logs other failures and prices with the slots as they are. The training is
 * admitted like any other (`admitTraining`: one per company across processes) and recorded as an operation by
 * "nightly"; a partner's training of the company running anywhere makes the night skip its refresh.
 */
export async function refreshModel(
  ctx: ServerContext,
  company: CompanyRow,
  today: string,
): Promise<RefreshOutcome> {
  const companyId = company.company_id;
  const slots = await ctx.policies.store.getSlots(companyId);
  if (slots.latest === null) return { status: "skipped", reason: "no_model" };
  const trainedOn = companyToday(new Date(slots.latest.trained_at), company.timezone);
  const fresh = await ctx.repositories.sales.list({ companyId, from: trainedOn, to: addDays(today, -1) });
  if (fresh.length === 0) return { status: "skipped", reason: "no_new_sales" };
  try {
    const trained = await trainHere(ctx, {
      company_id: companyId,
      auto_approve: company.auto_approve_updates === 1,
      approve_if: "safety_gate",
      by: "nightly",
      as_of: today,
    });
    return {
      status: "refreshed",
      model_id: trained.model_id,
      version: trained.version,
      auto_approved: trained.auto_approved,
    };
  } catch (error) {
    if (
      error instanceof ApiError &&
      (error.code === "insufficient_history" || error.code === "training_in_progress")
    ) {
      return { status: "skipped", reason: error.code };
    }
    throw error;
  }
}
