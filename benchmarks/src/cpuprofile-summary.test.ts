import { describe, expect, it } from "vitest";
import { type CpuProfile, summarizeProfile } from "./cpuprofile-summary.js";

const frame = (functionName: string) => ({ functionName, url: "file:///x/packages/a.ts", lineNumber: 0 });

// root -> handler -> { writev, handler (recursion) }
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2] },
    { id: 2, callFrame: frame("handler"), children: [3, 4] },
    { id: 3, callFrame: frame("writev") },
    { id: 4, callFrame: frame("handler") },
  ],
  // Each sample's time is the delta to the next one: handler 10, writev 30, handler (recursing) 20, the last 0.
  samples: [2, 3, 4, 3],
  timeDeltas: [0, 10, 30, 20],
};

describe("summarizeProfile", () => {
  it("gives each function its samples' time, once inclusively even when it recurses", () => {
    const { totalUs, functions } = summarizeProfile(profile);
    expect(totalUs).toBe(60);
    const of = (name: string) => functions.find((f) => f.name.startsWith(`${name} `));
    expect(of("writev")).toMatchObject({ self: 30, inclusive: 30 });
    expect(of("handler")).toMatchObject({ self: 30, inclusive: 60 });
    expect(of("(root)")).toMatchObject({ self: 0, inclusive: 60 });
    expect(of("handler")?.name).toBe("handler packages/a.ts:1");
  });

  it("counts only the samples taken inside the window", () => {
    // The samples at 10 (writev) and 40 (handler) µs; not the one at 0.
    const { totalUs, functions } = summarizeProfile(profile, 5, 45);
    expect(totalUs).toBe(50);
    expect(functions.find((f) => f.name.startsWith("writev"))?.self).toBe(30);
  });
});
