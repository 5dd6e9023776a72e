import {
  modelPromotedEventSchema,
  modelTrainedEventSchema,
  type Run,
  recommendationsUpdatedEventSchema,
  type WebhookEvent,
} from "@pricing/http-adapter";
import type { SlotChange } from "@pricing/policy-store";
import type { Logger } from "pino";
import { ulid } from "ulid";
import type { Clock } from "../clock.js";
import type { WebhooksRepository } from "../repositories/webhooks.js";

/** An event to record: its body, and the key naming the change it reports (recording it again is a no-op). */
export interface NewWebhookEvent {
  dedupeKey: string;
  companyId: string;
  body: WebhookEvent;
}

/** `recommendations.updated` for a persisted run. */
export function runPersistedEvent(run: Run): NewWebhookEvent {
  return {
    dedupeKey: `run:${run.run_id}`,
    companyId: run.company_id,
    body: recommendationsUpdatedEventSchema.parse({
      type: "recommendations.updated",
      timestamp: run.created_at,
      data: {
        company_id: run.company_id,
        run_id: run.run_id,
        kind: run.kind,
        as_of: run.as_of,
        start_date: run.start_date,
        end_date: run.end_date,
        source: run.source,
        model_id: run.model_id,
      },
    }),
  };
}

/**
 * The events of one committed slot change: a training is `model.trained` (and `model.promoted` too when it
 * auto-approved); a promote or a rollback is `model.promoted`. A no-op change (promoting the approved model again)
 * reports nothing.
 */
export function slotChangeEvents(companyId: string, change: SlotChange): NewWebhookEvent[] {
  const { slots } = change;
  const event = slots.history.at(-1);
  if (!change.changed || event === undefined || event.revision !== slots.revision) return [];
  const key = (type: string) => `slots:${companyId}:${event.revision}:${event.model_id}:${type}`;
  const events: NewWebhookEvent[] = [];
  if (event.action === "train" || event.action === "train_auto_approve") {
    events.push({
      dedupeKey: key("model.trained"),
      companyId,
      body: modelTrainedEventSchema.parse({
        type: "model.trained",
        timestamp: event.at,
        data: {
          company_id: companyId,
          model_id: event.model_id,
          version: event.version,
          trained_at: slots.latest?.model_id === event.model_id ? slots.latest.trained_at : event.at,
          auto_approved: event.action === "train_auto_approve",
        },
      }),
    });
  }
  if (event.action !== "train") {
    events.push({
      dedupeKey: key("model.promoted"),
      companyId,
      body: modelPromotedEventSchema.parse({
        type: "model.promoted",
        timestamp: event.at,
        data: {
          company_id: companyId,
          model_id: event.model_id,
          version: event.version,
          approved_at: slots.approved?.model_id === event.model_id ? slots.approved.approved_at : event.at,
          previous_model_id: event.replaced_approved,
          action:
            event.action === "train_auto_approve"
              ? "auto_approve"
              : event.action === "rollback"
                ? "rollback"
                : "promote",
        },
      }),
    });
  }
  return events;
}

/**
 * The webhook events of one process (`ctx.webhooks`): the services report changes here right after committing
 * them; each event is written with its deliveries in one transaction, and this process's dispatchers are woken.
 * Recording never fails the change it reports (it is committed already): a failure is logged.
 */
export interface WebhookEvents {
  /** A run was persisted (null: nothing was, e.g. the day's nightly run existed). */
  runPersisted(run: Run | null): Promise<void>;
  /** The policy store committed a slot change for the company. */
  slotsChanged(companyId: string, change: SlotChange): Promise<void>;
  record(events: readonly NewWebhookEvent[]): Promise<void>;
  /** Calls `listener` after each event recorded with deliveries; returns the unsubscribe. */
  onRecorded(listener: () => void): () => void;
  /** Registers a dispatcher's stop, called by `close`; returns the unregister. */
  track(stop: () => Promise<void>): () => void;
  /** Stops every dispatcher started on this context. */
  close(): Promise<void>;
}

export function createWebhookEvents(deps: {
  repository: WebhooksRepository;
  clock: Clock;
  logger: Logger;
}): WebhookEvents {
  const listeners = new Set<() => void>();
  const dispatchers = new Set<() => Promise<void>>();
  const events: WebhookEvents = {
    runPersisted: (run) => (run === null ? Promise.resolve() : events.record([runPersistedEvent(run)])),
    slotsChanged: (companyId, change) => events.record(slotChangeEvents(companyId, change)),
    async record(list) {
      let delivering = false;
      for (const event of list) {
        try {
          const deliveries = await deps.repository.recordEvent({
            eventId: `msg_${ulid()}`,
            dedupeKey: event.dedupeKey,
            type: event.body.type,
            companyId: event.companyId,
            payload: JSON.stringify(event.body),
            createdAt: deps.clock().toISOString(),
          });
          if (deliveries !== null && deliveries > 0) delivering = true;
        } catch (error) {
          deps.logger.error(
            { err: error, company_id: event.companyId, type: event.body.type },
            "recording a webhook event failed: its endpoints will not be told",
          );
        }
      }
      if (delivering) for (const listener of listeners) listener();
    },
    onRecorded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    track(stop) {
      dispatchers.add(stop);
      return () => dispatchers.delete(stop);
    },
    async close() {
      await Promise.all([...dispatchers].map((stop) => stop()));
    },
  };
  return events;
}
