import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BENCH_ENTRIES, JSON_OUT, TEMP_DIR } from "./bench-entries.js";
import { type EntryOutcome, resolveArgs } from "./bench-entry-run.js";
import { entryFailure, failureExcerpt } from "./bench-smoke.js";
import { checkFloors, figureAt, SMOKE_FLOORS, type SmokeFloor } from "./smoke-floors.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const scripts = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

describe("the benchmark registry", () => {
  it("has every benchmark script of package.json, pointing at the same file, and nothing else", () => {
    // The two runners of the registry, and the scripts that make data or docs rather than measure.
    const notBenchmarks = new Set([
      "bench",
      "bench:smoke",
      "data:complete-journey",
      "scenarios:complete-journey",
      "console:screenshots",
    ]);
    const benchmarks = Object.entries(scripts).filter(
      ([name, command]) => !notBenchmarks.has(name) && command.includes("benchmarks/src/"),
    );
    expect(BENCH_ENTRIES.map((e) => e.name).sort()).toEqual(benchmarks.map(([name]) => name).sort());
    for (const entry of BENCH_ENTRIES) {
      expect(scripts[entry.name], entry.name).toContain(`benchmarks/src/${entry.script}`);
      expect(existsSync(path.join(ROOT, "benchmarks/src", entry.script)), entry.script).toBe(true);
    }
  });

  it("gives a JSON file to every entry with floors, and each floor a reason", () => {
    for (const floor of SMOKE_FLOORS) {
      const entry = BENCH_ENTRIES.find((e) => e.name === floor.bench);
      expect(entry?.smoke, floor.figure).toContain(JSON_OUT);
      expect(floor.reason.length, floor.figure).toBeGreaterThan(20);
      expect(floor.atLeast !== undefined || floor.atMost !== undefined, floor.figure).toBe(true);
    }
  });

  it("replaces the placeholders by paths in the run's directory", () => {
    expect(resolveArgs(["--json", JSON_OUT, "--out", TEMP_DIR, "--x"], "/tmp/run")).toEqual([
      "--json",
      "/tmp/run/figures.json",
      "--out",
      "/tmp/run",
      "--x",
    ]);
  });
});

const report = {
  scenarios: [
    {
      scenario: "a",
      policies: [
        { policy: "rule", pct: 60 },
        { policy: "rl", pct: 97.5 },
      ],
    },
    { scenario: "b", policies: [{ policy: "rl", pct: 90 }] },
  ],
};
const floor = (bound: Partial<SmokeFloor>): SmokeFloor => ({
  bench: "bench:x",
  figure: "a rl",
  path: ["scenarios", { scenario: "a" }, "policies", { policy: "rl" }, "pct"],
  reason: "measured 97.5 in the test",
  ...bound,
});

describe("smoke floors", () => {
  it("finds a figure by keys and by the fields of array elements", () => {
    expect(figureAt(report, ["scenarios", { scenario: "b" }, "policies", { policy: "rl" }, "pct"])).toBe(90);
    expect(figureAt(report, ["scenarios", { scenario: "c" }, "policies"])).toBeUndefined();
    expect(figureAt(report, ["scenarios", { scenario: "a" }])).toBeUndefined();
    expect(figureAt(undefined, ["scenarios"])).toBeUndefined();
  });

  it("holds at the bound, fails past it either way, and fails a figure the run did not write", () => {
    const check = (bound: Partial<SmokeFloor>, json: unknown) =>
      checkFloors("bench:x", json, [floor(bound), { ...floor(bound), bench: "bench:other" }]).map(
        (c) => c.ok,
      );
    expect(check({ atLeast: 97.5 }, report)).toEqual([true]);
    expect(check({ atLeast: 97.6 }, report)).toEqual([false]);
    expect(check({ atMost: 97.5 }, report)).toEqual([true]);
    expect(check({ atMost: 97.4 }, report)).toEqual([false]);
    expect(check({ atLeast: 50 }, undefined)).toEqual([false]);
    expect(check({ atLeast: 50 }, { scenarios: [] })).toEqual([false]);
  });

  it("fails an entry that exits non-zero, runs past its timeout or falls past a floor; a skip is no failure", () => {
    const ran = (exitCode: number | null, timedOut = false): EntryOutcome => ({
      status: "ran",
      exitCode,
      timedOut,
      seconds: 1,
      json: report,
      output: "",
    });
    const holds = checkFloors("bench:x", report, [floor({ atLeast: 90 })]);
    const falls = checkFloors("bench:x", report, [floor({ atLeast: 99 })]);
    expect(entryFailure(ran(0), holds)).toBeNull();
    expect(entryFailure(ran(1), holds)).toBe("exit 1");
    expect(entryFailure(ran(null, true), holds)).toMatch(/^stopped after/);
    expect(entryFailure(ran(0), falls)).toBe("past its floor: a rl");
    expect(entryFailure({ status: "skipped", reason: "no wrk" }, [])).toBeNull();
  });
});

describe("a failed run's excerpt", () => {
  it("starts at the first error line, else shows the last lines", () => {
    const dump = Array.from({ length: 100 }, (_, i) => `  field${i}: ${i}`);
    const crash = [
      "table",
      "node:events:502",
      "error: terminating connection",
      "    at parse (x.ts:1)",
      ...dump,
    ];
    expect(failureExcerpt(crash.join("\n")).slice(0, 2)).toEqual([
      "error: terminating connection",
      "    at parse (x.ts:1)",
    ]);
    expect(failureExcerpt(["a", "Error: deliberately broken", "b"].join("\n"))[0]).toBe(
      "Error: deliberately broken",
    );
    expect(failureExcerpt(dump.join("\n"))).toHaveLength(40);
    expect(failureExcerpt(dump.join("\n")).at(-1)).toBe("  field99: 99");
    expect(failureExcerpt("\n")).toEqual([]);
  });
});
