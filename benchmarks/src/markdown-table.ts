/** A Markdown table with every column padded to its widest cell, so it also reads aligned as plain text. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((w, c) => (cells[c] ?? "").padEnd(w)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}
