import { ApiError } from "@pricing/http-adapter";
import { describe, expect, it } from "vitest";
import { createTrainingSlots } from "./training-slots.js";

describe("training slots", () => {
  it("holds one training per company, answers 409 with Retry-After, and releases the slot on failure", async () => {
    let clock = 0;
    const coordinator = createTrainingSlots({ expectedSeconds: 30, now: () => clock });
    let release!: () => void;
    const first = coordinator.exclusive("a", () => new Promise<string>((r) => (release = () => r("done"))));
    const second = coordinator.exclusive("a", async () => "never");
    await expect(second).rejects.toMatchObject({
      code: "training_in_progress",
      headers: { "Retry-After": "30" },
    });
    // Another company is not blocked.
    await expect(coordinator.exclusive("b", async () => "other")).resolves.toBe("other");
    clock = 12_000;
    await expect(coordinator.exclusive("a", async () => "never")).rejects.toMatchObject({
      headers: { "Retry-After": "18" },
    });
    release();
    await expect(first).resolves.toBe("done");
    expect(coordinator.isTraining("a")).toBe(false);

    // The next estimate is the last training's duration (12 s), not the budget.
    const again = coordinator.exclusive("a", () => new Promise<void>((r) => (release = r)));
    clock = 14_000;
    await expect(coordinator.exclusive("a", async () => 0)).rejects.toMatchObject({
      headers: { "Retry-After": "10" },
    });
    release();
    await again;

    await expect(
      coordinator.exclusive("a", async () => {
        throw new ApiError("insufficient_history");
      }),
    ).rejects.toMatchObject({ code: "insufficient_history" });
    expect(coordinator.isTraining("a")).toBe(false);
  });
});
