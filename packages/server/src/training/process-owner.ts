import { readFileSync } from "node:fs";

/**
 * Who runs an operation, as the operations table records it (`owner`): this machine's boot, the process id and
 * the process's start time in clock ticks since boot (Linux' /proc). A pid alone would do but for its reuse: after
 * a reboot, or in a container where the restarted server is pid 1 again, a live process may hold a dead owner's pid.
 */
interface Owner {
  boot: string | null;
  pid: number;
  /** Field 22 of /proc/<pid>/stat; null where there is no /proc. */
  start: string | null;
}

function readOr(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

function startTicks(pid: number): string | null {
  const stat = readOr(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  return stat === null ? null : (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null);
}

const bootId = () => readOr("/proc/sys/kernel/random/boot_id");

/** The process `pid` of this machine, as an operation's owner. */
function processOwner(pid: number): string {
  return JSON.stringify({ boot: bootId(), pid, start: startTicks(pid) } satisfies Owner);
}

let self: string | undefined;

/** This process, as an operation's owner. */
export function thisProcess(): string {
  self ??= processOwner(process.pid);
  return self;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the owner recorded may still be running: false when it names another boot of this machine, a pid that is
 * gone, or a pid now held by a process started at another time. An owner that does not parse (none recorded) is
 * taken as alive: nothing is settled on a guess.
 */
export function ownerMayBeAlive(recorded: string | null): boolean {
  if (recorded === null) return true;
  let owner: Owner;
  try {
    owner = JSON.parse(recorded) as Owner;
  } catch {
    return true;
  }
  if (recorded === thisProcess()) return true;
  const boot = bootId();
  if (owner.boot !== null && boot !== null && owner.boot !== boot) return false;
  if (!isRunning(owner.pid)) return false;
  return owner.start === null || startTicks(owner.pid) === owner.start;
}
