/**
 * `pnpm bench:smoke [--only NAME,...] [--jobs N] [--verbose]`: every benchmark entry point (`bench-entries.ts`) at
 * a size of seconds, so a benchmark that no longer starts is seen in CI. Fails when an entry exits non-zero (or
 * runs past its timeout) or when a quality figure falls past its floor (`smoke-floors.ts`). Entries whose needs are
 * missing (PostgreSQL, wrk, a build) are skipped with the reason printed. Timings are printed, never asserted.
 */
import { parseArgs } from "node:util";
import { BENCH_ENTRIES, type BenchEntry } from "./bench-entries.js";
import { type EntryOutcome, exitOnSignals, runEntry } from "./bench-entry-run.js";
import { markdownTable } from "./markdown-table.js";
import { boundText, checkFloors, type FloorCheck } from "./smoke-floors.js";

/** Far above any entry's smoke size: only a hung run meets it. */
const ENTRY_TIMEOUT_MS = 5 * 60_000;
const TAIL_LINES = 40;
/**
 * Entries run side by side: most of a small run is waiting (servers starting, paced load, a queue's polling), so
 * three at a time keep two cores busy; the figures the floors check do not depend on the machine's load.
 */
const DEFAULT_JOBS = 3;

/**
 * What to show of a failed run's output: from its first error line on (a thrown error's message and stack, not the
 * object dump Node may print after it), else its last lines.
 */
export function failureExcerpt(output: string): string[] {
  const lines = output.trimEnd().split("\n");
  if (lines.join("") === "") return [];
  const first = lines.findIndex((l) => /^\s*(\w*Error\b|error:)/.test(l));
  return first >= 0 ? lines.slice(first, first + TAIL_LINES) : lines.slice(-TAIL_LINES);
}

/** The smoke's verdict on one entry: why it failed, or null. */
export function entryFailure(outcome: EntryOutcome, floors: readonly FloorCheck[]): string | null {
  if (outcome.status === "skipped") return null;
  if (outcome.timedOut) return `stopped after ${ENTRY_TIMEOUT_MS / 1000} s`;
  if (outcome.exitCode !== 0) return `exit ${outcome.exitCode}`;
  const below = floors.filter((f) => !f.ok).map((f) => f.floor.figure);
  return below.length > 0 ? `past its floor: ${below.join(", ")}` : null;
}

interface Report {
  row: string[];
  figures: string[][];
  failed: boolean;
}

/** Runs one entry and prints its verdict (and the tail of its output when it failed) as one block. */
async function smokeEntry(entry: BenchEntry, verbose: boolean): Promise<Report> {
  const outcome = await runEntry(entry, entry.smoke, { capture: !verbose, timeoutMs: ENTRY_TIMEOUT_MS });
  const head = `${entry.name} ${entry.smoke.join(" ")}\n`;
  if (outcome.status === "skipped") {
    process.stdout.write(`${head}  skipped: ${outcome.reason}\n`);
    return { row: [entry.name, "skipped", "-", outcome.reason], figures: [], failed: false };
  }
  const floors = checkFloors(entry.name, outcome.json);
  const failure = entryFailure(outcome, floors);
  let block = `${head}  ${failure ?? "ok"} in ${outcome.seconds.toFixed(1)} s\n`;
  const excerpt = failureExcerpt(outcome.output);
  if (failure !== null && excerpt.length > 0) block += `${excerpt.map((l) => `  | ${l}`).join("\n")}\n`;
  process.stdout.write(block);
  return {
    row: [entry.name, failure === null ? "ok" : "FAILED", outcome.seconds.toFixed(1), failure ?? ""],
    figures: floors.map((f) => [
      entry.name,
      f.floor.figure,
      f.value === undefined ? "missing" : String(Number(f.value.toFixed(4))),
      boundText(f.floor),
      f.ok ? "yes" : "NO",
    ]),
    failed: failure !== null,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      jobs: { type: "string", default: String(DEFAULT_JOBS) },
      verbose: { type: "boolean", default: false },
    },
  });
  const only = values.only?.split(",");
  const unknown = only?.filter((name) => !BENCH_ENTRIES.some((e) => e.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(
      `unknown entry ${unknown.join(", ")}; known: ${BENCH_ENTRIES.map((e) => e.name).join(", ")}`,
    );
  }
  // Output passed through is only readable one entry at a time.
  const jobs = values.verbose ? 1 : Number(values.jobs);
  if (!(Number.isInteger(jobs) && jobs >= 1)) throw new Error("--jobs must be a positive integer");
  exitOnSignals();
  const entries = BENCH_ENTRIES.filter((e) => only === undefined || only.includes(e.name));
  const started = performance.now();
  const reports: Report[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < entries.length; i = next++)
      reports[i] = await smokeEntry(entries[i]!, values.verbose);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, entries.length) }, worker));
  const wall = (performance.now() - started) / 1000;
  process.stdout.write(
    `\n${markdownTable(
      ["entry", "result", "s", "note"],
      reports.map((r) => r.row),
    )}\n`,
  );
  const figures = reports.flatMap((r) => r.figures);
  if (figures.length > 0) {
    process.stdout.write(`\n${markdownTable(["entry", "figure", "value", "floor", "holds"], figures)}\n`);
  }
  const failed = reports.filter((r) => r.failed).length;
  const skipped = reports.filter((r) => r.row[1] === "skipped").length;
  process.stdout.write(
    `\nbench:smoke: ${reports.length} entries, ${failed} failed, ${skipped} skipped, ${jobs} at a time, ` +
      `${wall.toFixed(0)} s\n`,
  );
  if (failed > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
