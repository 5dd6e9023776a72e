import { describe, expect, it } from "vitest";
import { startV2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

describe("closing the server during a training", () => {
  it("aborts the training, answers its request and closes promptly, committing nothing", async () => {
    const h = await startV2Harness("2026-03-09T03:00:00Z", {
      trainSeconds: 60,
      trainHorizonDays: 21,
      runDays: 14,
      minHistoryDays: 28,
    });
    try {
      await h.seedCompany("long", { products: 3 });
      const token = await h.token(await h.partner(["long"]));
      const train = h.post("/public/v1/v2/model/train", token, { company_id: "long" }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error: { code: string } },
      }));
      await waitFor(() => h.ctx.training.isTraining("long"), { what: "the training to hold the slot" });

      const t0 = performance.now();
      await h.server.close();
      const closeMs = performance.now() - t0;

      const answer = await train;
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe("unavailable");
      // A 60-second training budget: a close that waited for it would take far longer than this.
      expect(closeMs).toBeLessThan(10_000);
      const slots = await h.ctx.policies.store.getSlots("long");
      expect(slots.latest).toBeNull();
    } finally {
      await h.destroy().catch(() => undefined);
    }
  });
});
