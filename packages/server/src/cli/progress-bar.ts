import type { CliRuntime } from "./cli-runtime.js";

/** A one-line progress bar on stderr, redrawn in place; silent when disabled (stderr not a terminal, or --json). */
export function progressBar(cli: CliRuntime, label: string, enabled: boolean): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    if (!enabled) return;
    const pct = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
    if (pct === last) return;
    last = pct;
    const width = 30;
    const done = Math.round((pct / 100) * width);
    cli.io.err(`\r${label} [${"#".repeat(done)}${"-".repeat(width - done)}] ${String(pct).padStart(3)}%`);
    if (pct === 100) cli.io.err("\n");
  };
}
