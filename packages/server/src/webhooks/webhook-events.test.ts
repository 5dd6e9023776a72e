import { webhookEventSchema } from "@pricing/http-adapter";
import type { SlotChange, SlotEvent } from "@pricing/policy-store";
import { describe, expect, it } from "vitest";
import { runPersistedEvent, slotChangeEvents } from "./webhook-events.js";

const M1 = "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F";
const M2 = "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4G";
const AT = "2026-11-23T10:00:00.000Z";

function change(event: Omit<SlotEvent, "revision" | "at">, changed = true): SlotChange {
  return {
    changed,
    slots: {
      company_id: "acme",
      revision: 4,
      latest: { model_id: M2, version: 2, trained_at: "2026-11-23T09:59:00.000Z", committed_at: AT },
      approved:
        event.action === "train"
          ? null
          : { model_id: event.model_id, version: event.version, trained_at: AT, approved_at: AT },
      previous_approved: null,
      history: [{ revision: 4, at: AT, ...event }],
    },
  };
}

describe("slotChangeEvents", () => {
  it("a training is model.trained; with auto-approve also model.promoted", () => {
    const plain = slotChangeEvents(
      "acme",
      change({ action: "train", model_id: M2, version: 2, replaced_latest: M1, replaced_approved: null }),
    );
    expect(plain.map((e) => e.body)).toEqual([
      {
        type: "model.trained",
        timestamp: AT,
        data: {
          company_id: "acme",
          model_id: M2,
          version: 2,
          trained_at: "2026-11-23T09:59:00.000Z",
          auto_approved: false,
        },
      },
    ]);
    const auto = slotChangeEvents(
      "acme",
      change({
        action: "train_auto_approve",
        model_id: M2,
        version: 2,
        replaced_latest: M1,
        replaced_approved: M1,
      }),
    );
    expect(auto.map((e) => e.body.type)).toEqual(["model.trained", "model.promoted"]);
    expect(auto[1]?.body.data).toMatchObject({ action: "auto_approve", previous_model_id: M1, model_id: M2 });
    for (const e of [...plain, ...auto]) expect(webhookEventSchema.safeParse(e.body).success).toBe(true);
  });

  it("a rollback is model.promoted with action rollback; a no-op change reports nothing", () => {
    const [rolled] = slotChangeEvents(
      "acme",
      change({ action: "rollback", model_id: M1, version: 1, replaced_latest: M2, replaced_approved: M2 }),
    );
    expect(rolled?.body).toMatchObject({
      type: "model.promoted",
      data: { model_id: M1, version: 1, approved_at: AT, previous_model_id: M2, action: "rollback" },
    });
    const noop = change(
      { action: "promote", model_id: M2, version: 2, replaced_latest: M2, replaced_approved: M2 },
      false,
    );
    expect(slotChangeEvents("acme", noop)).toEqual([]);
  });

  it("keys each event by the change it reports, so recording it twice is recognised", () => {
    const c = change({
      action: "promote",
      model_id: M2,
      version: 2,
      replaced_latest: M2,
      replaced_approved: M1,
    });
    expect(slotChangeEvents("acme", c)[0]?.dedupeKey).toBe(slotChangeEvents("acme", c)[0]?.dedupeKey);
    expect(slotChangeEvents("acme", c)[0]?.dedupeKey).toBe(`slots:acme:4:${M2}:model.promoted`);
  });
});

describe("runPersistedEvent", () => {
  it("is recommendations.updated with the run's ids, keyed by the run", () => {
    const event = runPersistedEvent({
      run_id: "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
      company_id: "acme",
      kind: "nightly",
      as_of: "2026-11-23",
      created_at: AT,
      source: "rule",
      model_id: null,
      start_date: "2026-11-23",
      end_date: "2026-12-22",
      products: 3,
      recommendation_count: 90,
    });
    expect(event.dedupeKey).toBe("run:run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F");
    expect(event.body).toEqual({
      type: "recommendations.updated",
      timestamp: AT,
      data: {
        company_id: "acme",
        run_id: "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
        kind: "nightly",
        as_of: "2026-11-23",
        start_date: "2026-11-23",
        end_date: "2026-12-22",
        source: "rule",
        model_id: null,
      },
    });
  });
});
