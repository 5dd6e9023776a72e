import { describe, expect, it } from "vitest";
import { importProgressLine } from "./import-progress.js";

function capture(enabled: boolean) {
  let err = "";
  const line = importProgressLine({ out: () => undefined, err: (t) => (err += t) }, enabled);
  return { line, err: () => err };
}

describe("the import's progress line", () => {
  it("redraws one line in place through the steps and ends it", () => {
    const { line, err } = capture(true);
    line.show({ step: "reading", file: "sales.csv", rows: 10_000, bytesRead: 250, bytesTotal: 1000 });
    line.show({ step: "reading", file: "sales.csv", rows: 1_460_000, bytesRead: 1000, bytesTotal: 1000 });
    line.show({ step: "checking", file: "sales.csv", rows: 1_461_000 });
    line.show({ step: "writing", file: null, rows: 12 });
    line.end();
    const frames = err().split("\r").slice(1);
    expect(frames.map((f) => f.trimEnd())).toEqual([
      "sales.csv: 10,000 rows read (25 %)",
      "sales.csv: 1,460,000 rows read (100 %)",
      "sales.csv: 1,461,000 rows read; checking duplicates and changes",
      "writing 12 new and changed rows",
    ]);
    // Each frame covers the longer one before it; the last ends the line.
    expect(frames[3]?.replace("\n", "").length).toBe(frames[2]?.length);
    expect(err().endsWith("\n")).toBe(true);
  });

  it("writes nothing when stderr is not a terminal (or with --json)", () => {
    const { line, err } = capture(false);
    line.show({ step: "checking", file: "sales.csv", rows: 1 });
    line.end();
    expect(err()).toBe("");
  });
});
