/**
 * Self and inclusive time by function of a V8 `.cpuprofile` (what `bench:http --profile DIR` writes), optionally
 * within a time window, so that a loaded section can be read apart from the set-up around it:
 *
 *   tsx benchmarks/src/cpuprofile-summary.ts <file.cpuprofile> [--top N] [--from S] [--to S]
 *
 * The profiler samples wall time of the thread: time spent waiting for the CPU on a loaded machine counts against
 * whatever was running, so compare shares within one profile rather than milliseconds across machines.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  name: string;
  /** Microseconds. */
  self: number;
  inclusive: number;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(packages|benchmarks)\//, "$1/");
  return `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
}

/**
 * Time by function, the largest inclusive first, over samples between `fromUs` and `toUs` after the profile's
 * start. A sample's time is the delta to the next sample; a function on the stack twice counts once inclusively.
 */
export function summarizeProfile(
  profile: CpuProfile,
  fromUs = 0,
  toUs = Number.POSITIVE_INFINITY,
): {
  totalUs: number;
  functions: FunctionTime[];
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const times = new Map<string, FunctionTime>();
  const entry = (name: string) => {
    let t = times.get(name);
    if (t === undefined) {
      t = { name, self: 0, inclusive: 0 };
      times.set(name, t);
    }
    return t;
  };
  let at = 0;
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const spent = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(profile.samples[i] ?? -1);
    if (leaf === undefined || at < fromUs || at > toUs) continue;
    totalUs += spent;
    entry(label(leaf)).self += spent;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined) break;
      const name = label(node);
      if (seen.has(name)) continue;
      seen.add(name);
      entry(name).inclusive += spent;
    }
  }
  const functions = [...times.values()].sort((a, b) => b.inclusive - a.inclusive);
  return { totalUs, functions };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "40" }, from: { type: "string" }, to: { type: "string" } },
  });
  const file = positionals[0];
  if (!file) throw new Error("usage: cpuprofile-summary.ts <file.cpuprofile> [--top N] [--from S] [--to S]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const { totalUs, functions } = summarizeProfile(
    profile,
    values.from === undefined ? 0 : Number(values.from) * 1e6,
    values.to === undefined ? Number.POSITIVE_INFINITY : Number(values.to) * 1e6,
  );
  const top = Number(values.top);
  const row = (us: number, name: string) =>
    `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${name}`;
  console.log(`self (of ${(totalUs / 1e6).toFixed(2)} s sampled)`);
  for (const f of [...functions].sort((a, b) => b.self - a.self).slice(0, top))
    console.log(row(f.self, f.name));
  console.log("inclusive");
  for (const f of functions.slice(0, top)) console.log(row(f.inclusive, f.name));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
