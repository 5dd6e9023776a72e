import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The engine's small rules each have one home (issue 25 item 3). A rule written again in other words is what
 * `duplicates` cannot see, so this reads the engine's production files for the shapes each rule used to take.
 */
const SRC = import.meta.dirname;

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test-support" ? [] : sources(path);
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) return [];
    return [{ file: relative(SRC, path), text: readFileSync(path, "utf8") }];
  });
}

/** Where `pattern` occurs outside `home`, as `file: line`. */
function elsewhere(pattern: RegExp, home: string): string[] {
  return sources(SRC).flatMap(({ file, text }) =>
    file === home
      ? []
      : text
          .split("\n")
          .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("the engine's rules, one home each", () => {
  it("one nearest-price function: base/nearest-price.ts", () => {
    // An inline search compares two distances; a second function is named for what it finds.
    expect(elsewhere(/Math\.abs\([^()]*\)\s*<\s*Math\.abs\(/, "base/nearest-price.ts")).toEqual([]);
    const named = elsewhere(/function nearest\w*/, "base/nearest-price.ts").map((hit) => hit.split(":")[0]);
    // nearestAllowedIndex asks nearestPriceIndex within the allowed range; nearestPrintable finds a printable
    // price (an ending), off any grid.
    expect(named.sort()).toEqual(["base/price-format.ts", "problem/action-range.ts"]);
    expect(readFileSync(join(SRC, "problem/action-range.ts"), "utf8")).toContain("nearestPriceIndex(");
  });

  it("one daily-change check and tolerance: base/daily-change.ts", () => {
    expect(elsewhere(/Math\.abs\([^()]*\/[^()]*-\s*1\)\s*[<>]/, "base/daily-change.ts")).toEqual([]);
    // A ratio against the limit without the tolerance (the grid's gap filling wrote one).
    expect(elsewhere(/\w\s*\/\s*\w+\s*-\s*1\s*[<>]=?\s*\w*[lL]imit/, "base/daily-change.ts")).toEqual([]);
    expect(
      elsewhere(
        /(limit|[Dd]aily[Cc]hange|JUMP_FAR)\s*[+-]\s*(1e-\d+|CHANGE_TOLERANCE)/,
        "base/daily-change.ts",
      ),
    ).toEqual([]);
    expect(elsewhere(/CHANGE_TOLERANCE\s*=/, "base/daily-change.ts")).toEqual([]);
  });

  it("one guardrail filter: base/guardrails.ts", () => {
    expect(
      elsewhere(/[mM]in_?[pP]rice\s*-\s*1e-\d+|[mM]ax_?[pP]rice\s*\+\s*1e-\d+/, "base/guardrails.ts"),
    ).toEqual([]);
  });

  it("one stock-out day, one observed range, one home for random draws", () => {
    expect(elsewhere(/units_sold\s*>=\s*[\w.]*stock_on_hand/, "sales/sales-row.ts")).toEqual([]);
    expect(elsewhere(/Math\.(min|max)\(\.\.\.observed/, "sales/observed-range.ts")).toEqual([]);
    expect(elsewhere(/Math\.cos\(2 \* Math\.PI/, "random/random-draws.ts")).toEqual([]);
  });
});
