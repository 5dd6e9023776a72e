/**
 * `pnpm bench`: every benchmark entry point (`bench-entries.ts`) at its quick size, one after the other, each
 * printing its own table; those whose needs are missing are skipped with the reason printed. The full runs are
 * each entry's own `pnpm <name>`.
 */
import { BENCH_ENTRIES } from "./bench-entries.js";
import { exitOnSignals, runEntry } from "./bench-entry-run.js";

exitOnSignals();
let failed = 0;
for (const entry of BENCH_ENTRIES) {
  process.stdout.write(`\n## ${entry.name} ${entry.quick.join(" ")}\n\n`);
  const outcome = await runEntry(entry, entry.quick, { capture: false, timeoutMs: 60 * 60_000 });
  if (outcome.status === "skipped") process.stdout.write(`skipped: ${outcome.reason}\n`);
  else if (outcome.exitCode !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
