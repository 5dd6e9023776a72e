import type { ApiErrorCode, DocumentedErrorCode } from "@pricing/client";
import type { PartnerErrorCode } from "@pricing/http-adapter";
import { describe, expectTypeOf, it } from "vitest";

// Issue 25 item 4: the client's error codes come from the served OpenAPI document (openapi.gen.ts), so a code the
// server adds reaches the client with `pnpm --filter @pricing/client gen:types` (its --check runs in the tests).
// Checked by `pnpm typecheck`, which compiles this file.
describe("the client's error codes", () => {
  it("are exactly the partner API's codes, plus the client's own", () => {
    expectTypeOf<DocumentedErrorCode>().toEqualTypeOf<PartnerErrorCode>();
    expectTypeOf<"slots_unreadable">().toExtend<ApiErrorCode>();
    expectTypeOf<"rollback_target_invalid">().toExtend<ApiErrorCode>();
    expectTypeOf<"unexpected_response">().toExtend<ApiErrorCode>();
  });
});
