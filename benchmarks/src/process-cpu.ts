/**
 * CPU accounting from Linux's /proc, for the benchmarks that load a server in another process: CPU seconds do not
 * depend on how busy the shared machine is, where req/s and latencies do.
 */
import { readFileSync } from "node:fs";

/** `sysconf(_SC_CLK_TCK)`: the unit of utime and stime in /proc, 100 on Linux. */
export const CLOCK_TICKS = 100;

/** CPU seconds of a process (every thread), or with `thread`, of that thread alone (the main one: `pid` again). */
export function processSeconds(pid: number, thread?: number): number {
  try {
    const stat = readFileSync(
      thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
      "utf8",
    );
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Pids of a process's living children, from every thread's list. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU seconds of a process and its living descendants (a server started through `tsx` runs in tsx's child), or
 * null where /proc is not there to read.
 */
export function processTreeSeconds(pid: number): number | null {
  try {
    readFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  let seconds = 0;
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    seconds += processSeconds(next);
    pending.push(...childrenOf(next));
  }
  return seconds;
}
