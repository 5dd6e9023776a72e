import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const example = fileURLToPath(new URL("../examples/fit-train-evaluate.ts", import.meta.url));

describe("the README's example", () => {
  it("runs and prints, per product, margins no better than the optimum", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", example], { timeout: 120_000 });
    const rows = stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual(["scarf", "socks"]);
    for (const [, , policy, rule, optimum] of rows) {
      expect(Number(policy)).toBeGreaterThan(0);
      expect(Number(rule)).toBeGreaterThan(0);
      // Exact evaluation: nothing beats the optimum (rounded to whole currency units in the table).
      expect(Number(policy)).toBeLessThanOrEqual(Number(optimum));
      expect(Number(rule)).toBeLessThanOrEqual(Number(optimum));
    }
  });
});
