import { describe, expect, it } from "vitest";
import { RETRY_DELAYS_MS, retryDelayMs } from "./retry-schedule.js";

describe("webhook retry schedule", () => {
  it("waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n));
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(retryDelayMs(8)).toBeNull();
  });

  it("keeps retrying for more than 24 hours, each wait at least as long as the one before", () => {
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(24 * 3_600_000);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++) {
      expect(RETRY_DELAYS_MS[i]).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i - 1] as number);
    }
  });

  it("takes another schedule, and refuses an attempt count below 1", () => {
    expect(retryDelayMs(1, [10, 20])).toBe(10);
    expect(retryDelayMs(3, [10, 20])).toBeNull();
    expect(() => retryDelayMs(0)).toThrow();
  });
});
