import { describe, expect, it } from "vitest";
import { generateTypes, readCommittedTypes } from "./generate-types.js";

/** The first differing line with a little context, so a stale file fails with a readable message. */
function firstDifference(expected: string, actual: string): string | null {
  const a = expected.split("\n");
  const b = actual.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `line ${i + 1}:\n  served:    ${a[i] ?? "<end>"}\n  committed: ${b[i] ?? "<end>"}`;
  }
  return null;
}

describe("openapi.gen.ts", () => {
  it("matches the OpenAPI document the server serves", async () => {
    const fresh = await generateTypes();
    expect(fresh).toContain("export interface operations");
    const difference = firstDifference(fresh, readCommittedTypes());
    expect(difference, "stale: run `pnpm --filter @pricing/client gen:types`").toBeNull();
  });
});
