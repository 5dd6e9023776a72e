import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BenchEntry, JSON_OUT, TEMP_DIR } from "./bench-entries.js";
import { missingNeeds } from "./bench-needs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

export type EntryOutcome =
  | { status: "skipped"; reason: string }
  | {
      status: "ran";
      exitCode: number | null;
      /** Set when the run was stopped for taking longer than its timeout. */
      timedOut: boolean;
      seconds: number;
      /** What the run wrote to its JSON_OUT file, if it had one and wrote it. */
      json: unknown;
      /** Its stdout and stderr, when captured. */
      output: string;
    };

export interface RunOptions {
  /** Capture the run's output (returned) instead of passing it through. */
  capture: boolean;
  /** Stop the run (and every process it started) after this long. */
  timeoutMs: number;
}

/** Ends this process on Ctrl-C or SIGTERM through `exit`, which stops the running entry's process group. */
export function exitOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
}

/** The arguments with the placeholders replaced by paths in `dir`. */
export function resolveArgs(args: readonly string[], dir: string): string[] {
  return args.map((a) => (a === JSON_OUT ? path.join(dir, "figures.json") : a === TEMP_DIR ? dir : a));
}

/**
 * Runs the entry's script with `args` as `pnpm <name>` would (tsx, the workspace packages from source), unless a
 * need is missing on this machine.
 */
export async function runEntry(
  entry: BenchEntry,
  args: readonly string[],
  options: RunOptions,
): Promise<EntryOutcome> {
  const missing = await missingNeeds(entry.needs);
  if (missing.length > 0) return { status: "skipped", reason: missing.join("; ") };
  const dir = mkdtempSync(path.join(tmpdir(), `pricing-${entry.name.replace(/\W/g, "-")}-`));
  const logFile = path.join(dir, "output.log");
  const log = options.capture ? openSync(logFile, "w") : null;
  const started = performance.now();
  try {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@pricing/source",
        "--import",
        "tsx",
        path.join(ROOT, "benchmarks/src", entry.script),
        ...resolveArgs(args, dir),
      ],
      // Its own process group, so a timeout stops the servers and workers it started too.
      { cwd: ROOT, stdio: log === null ? "inherit" : ["ignore", log, log], detached: true },
    );
    const stopGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    };
    // Its group does not get our Ctrl-C: stop it when we stop.
    process.once("exit", stopGroup);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, options.timeoutMs);
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(null));
    });
    clearTimeout(timer);
    process.off("exit", stopGroup);
    // A server or worker the run left behind would hold its port and CPU for the next entry.
    stopGroup();
    const jsonFile = path.join(dir, "figures.json");
    return {
      status: "ran",
      exitCode,
      timedOut,
      seconds: (performance.now() - started) / 1000,
      json: existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, "utf8")) : undefined,
      output: log === null ? "" : readFileSync(logFile, "utf8"),
    };
  } finally {
    if (log !== null) closeSync(log);
    rmSync(dir, { recursive: true, force: true });
  }
}
