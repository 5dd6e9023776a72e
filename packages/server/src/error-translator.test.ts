import { EngineError } from "@pricing/engine";
import {
  ApprovedModelStaleError,
  ModelIdStaleError,
  PolicyStoreError,
  RollbackTargetError,
} from "@pricing/policy-store";
import { describe, expect, it } from "vitest";
import { translateError } from "./error-translator.js";

describe("translateError", () => {
  it("gives each library error its API code and status, in one place", () => {
    const cases: [unknown, { code: string; statusCode: number }][] = [
      [
        new EngineError("insufficient_history", "too short"),
        { code: "insufficient_history", statusCode: 422 },
      ],
      [new ModelIdStaleError("co", "m2", "m3"), { code: "model_id_stale", statusCode: 409 }],
      [new ApprovedModelStaleError("co", "m1", "m2"), { code: "approved_model_stale", statusCode: 409 }],
      [
        new RollbackTargetError("unknown_model", "gone"),
        { code: "rollback_target_invalid", statusCode: 422 },
      ],
      [
        new RollbackTargetError("nothing_to_roll_back", "never"),
        { code: "rollback_target_invalid", statusCode: 422 },
      ],
      [new PolicyStoreError("corrupt_slots", "bad json"), { code: "slots_unreadable", statusCode: 409 }],
      [new PolicyStoreError("contention", "lost"), { code: "unavailable", statusCode: 503 }],
      [Object.assign(new Error("busy"), { code: "SQLITE_BUSY" }), { code: "unavailable", statusCode: 503 }],
    ];
    for (const [error, expected] of cases)
      expect(translateError(error), String(error)).toMatchObject(expected);
  });

  it("leaves a fault alone, and a store refusal outside a rollback (unknown_model elsewhere is no bad target)", () => {
    expect(translateError(new Error("boom"))).toBeUndefined();
    expect(translateError(new EngineError("training_failed", "nan"))).toBeUndefined();
    expect(translateError(new PolicyStoreError("unknown_model", "gone"))).toBeUndefined();
  });
});
