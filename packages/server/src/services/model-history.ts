import type { ModelEvent, ModelHistory, ModelHistoryQuery } from "@pricing/http-adapter";
import { approvalPeriods, type SlotEvent } from "@pricing/policy-store";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { numericMetrics } from "./numeric-metrics.js";

/** The API's events of one slot change, oldest first: a train with auto-approve is a train and a promotion. */
function eventsOf(event: SlotEvent): ModelEvent[] {
  const at = event.at;
  const model_id = event.model_id;
  const by = event.by ?? null;
  switch (event.action) {
    case "train":
      return [{ at, kind: "trained", model_id, by }];
    case "train_auto_approve":
      return [
        { at, kind: "trained", model_id, by },
        { at, kind: "promoted", model_id, by },
      ];
    case "promote":
      return [{ at, kind: "promoted", model_id, by }];
    case "rollback":
      return [{ at, kind: "rolled_back", model_id, by }];
  }
}

/**
 * A company's stored artifacts (newest version first, each with its last approval period) and slot changes
 * (newest first), `limit` and `offset` paging both (`GET /v2/model/history`, `pricing model history`). The events
 * are the slot history the store keeps (its last 1000 changes).
 */
export async function modelHistory(ctx: ServerContext, input: ModelHistoryQuery): Promise<ModelHistory> {
  await findCompany(ctx, input.company_id);
  const store = ctx.policies.store;
  const state = await store.getSlots(input.company_id);
  const periods = approvalPeriods(state.history);
  const records = (await store.listVersions(input.company_id)).reverse();
  const events = state.history.flatMap(eventsOf).reverse();
  const page = <T>(list: T[]) => list.slice(input.offset, input.offset + input.limit);
  const artifacts = await Promise.all(
    page(records).map(async (record) => {
      const period = periods.get(record.model_id);
      return {
        model_id: record.model_id,
        version: record.version,
        trained_at: record.trained_at,
        metrics: numericMetrics(await store.artifactMetrics(input.company_id, record.model_id)),
        approved_from: period?.from ?? null,
        approved_until: period?.until ?? null,
      };
    }),
  );
  return {
    company_id: input.company_id,
    total_artifacts: records.length,
    total_events: events.length,
    artifacts,
    events: page(events),
  };
}
