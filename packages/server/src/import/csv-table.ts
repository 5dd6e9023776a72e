import { parse } from "csv-parse/sync";

export interface CsvRow {
  /** 1-based line in the file where the record starts. */
  line: number;
  values: Record<string, string>;
}

export interface ImportIssue {
  file: string;
  line: number;
  column: string | null;
  message: string;
}

export interface CsvTable {
  rows: CsvRow[];
  issues: ImportIssue[];
}

/**
 * Parses a CSV with a header row, checking the header against the known columns. Empty cells become absent
 * values, so optional columns may be left blank.
 */
export function readCsvTable(
  file: string,
  text: string,
  columns: { required: readonly string[]; optional: readonly string[] },
): CsvTable {
  const issues: ImportIssue[] = [];
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // With `info: true` each record comes as {record, info}; the typings only know plain arrays.
    records = parse(text, {
      info: true,
      trim: true,
      skip_empty_lines: true,
      bom: true,
      relax_column_count: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const e = error as { lines?: number; message?: string };
    return {
      rows: [],
      issues: [
        { file, line: e.lines ?? 1, column: null, message: `not valid CSV: ${e.message ?? "parse error"}` },
      ],
    };
  }
  const [header, ...body] = records;
  if (!header) return { rows: [], issues: [{ file, line: 1, column: null, message: "the file is empty" }] };
  const names = header.record;
  const known = new Set([...columns.required, ...columns.optional]);
  names.forEach((name) => {
    if (!known.has(name)) issues.push({ file, line: 1, column: name, message: "unknown column" });
  });
  for (const required of columns.required) {
    if (!names.includes(required))
      issues.push({ file, line: 1, column: required, message: "required column missing" });
  }
  if (new Set(names).size !== names.length) {
    issues.push({ file, line: 1, column: null, message: "duplicate column names" });
  }
  // Rows read against a wrong header would only repeat the header's problem line by line.
  if (issues.length > 0) return { rows: [], issues };
  const rows: CsvRow[] = [];
  for (const { record, info } of body) {
    const line = info.lines;
    if (record.length !== names.length) {
      issues.push({
        file,
        line,
        column: null,
        message: `expected ${names.length} fields, found ${record.length}`,
      });
      continue;
    }
    const values: Record<string, string> = {};
    names.forEach((name, i) => {
      const cell = record[i];
      if (cell !== undefined && cell !== "") values[name] = cell;
    });
    rows.push({ line, values });
  }
  return { rows, issues };
}
