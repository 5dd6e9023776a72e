import type { ImportProgress } from "../import/data-import.js";
import type { CliIo } from "./cli-runtime.js";

/**
 * The import's progress as one line on stderr, redrawn in place, ended when the import ends; silent when stderr is
 * not a terminal or with --json.
 */
export function importProgressLine(
  io: CliIo,
  enabled: boolean,
): { show(p: ImportProgress): void; end(): void } {
  let width = 0;
  const draw = (text: string) => {
    io.err(`\r${text.padEnd(width)}`);
    width = Math.max(width, text.length);
  };
  const count = (n: number) => n.toLocaleString("en-US");
  return {
    show(p) {
      if (!enabled) return;
      if (p.step === "reading") {
        const pct = p.bytesTotal > 0 ? Math.floor((100 * p.bytesRead) / p.bytesTotal) : 100;
        draw(`${p.file}: ${count(p.rows)} rows read (${pct} %)`);
      } else if (p.step === "checking") {
        draw(`${p.file}: ${count(p.rows)} rows read; checking duplicates and changes`);
      } else {
        draw(`writing ${count(p.rows)} new and changed rows`);
      }
    },
    end() {
      if (enabled && width > 0) io.err("\n");
    },
  };
}
