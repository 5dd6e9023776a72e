import { createReadStream } from "node:fs";
import { parse } from "csv-parse";
import type { FileIssues } from "./import-issues.js";

export interface CsvRow {
  /** 1-based line in the file where the record starts. */
  line: number;
  values: Record<string, string>;
}

export interface CsvColumns {
  required: readonly string[];
  optional: readonly string[];
}

/**
 * Streams a CSV file with a header row, checking the header against the known columns: one record in memory at a
 * time, whatever the file's size. Empty cells become absent values, so optional columns may be left blank.
 * Problems go to `issues`: a bad header yields no row (rows read against it would only repeat its problem line by
 * line), a record with the wrong number of fields is skipped, and text that is not CSV ends the file there.
 * `onBytes` hears how many bytes of the file have been read.
 */
export async function* readCsvRows(
  path: string,
  columns: CsvColumns,
  issues: FileIssues,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<CsvRow> {
  const input = createReadStream(path, { highWaterMark: 1 << 16 });
  if (onBytes) input.on("data", () => onBytes(input.bytesRead));
  // With `info: true` each record comes as {record, info}; the typings only know plain arrays.
  const records = input.pipe(
    parse({ info: true, trim: true, skip_empty_lines: true, bom: true, relax_column_count: true }),
  ) as AsyncIterable<{ record: string[]; info: { lines: number } }>;
  let names: string[] | undefined;
  try {
    for await (const { record, info } of records) {
      if (names === undefined) {
        names = record;
        if (!headerIsValid(names, columns, issues)) return;
        continue;
      }
      if (record.length !== names.length) {
        issues.add({
          line: info.lines,
          column: null,
          message: `expected ${names.length} fields, found ${record.length}`,
        });
        continue;
      }
      const values: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        const cell = record[i];
        if (cell !== undefined && cell !== "") values[names[i] as string] = cell;
      }
      yield { line: info.lines, values };
    }
  } catch (error) {
    // A read error (a missing file) is the caller's; a parse error is the file's, on the line it names.
    if ((error as { code?: string }).code?.startsWith("CSV_") !== true) throw error;
    const e = error as { lines?: number; message?: string };
    issues.add({ line: e.lines ?? 1, column: null, message: `not valid CSV: ${e.message ?? "parse error"}` });
    return;
  } finally {
    input.destroy();
  }
  if (names === undefined) issues.add({ line: 1, column: null, message: "the file is empty" });
}

function headerIsValid(names: readonly string[], columns: CsvColumns, issues: FileIssues): boolean {
  const before = issues.count;
  const known = new Set([...columns.required, ...columns.optional]);
  for (const name of names) {
    if (!known.has(name)) issues.add({ line: 1, column: name, message: "unknown column" });
  }
  for (const required of columns.required) {
    if (!names.includes(required))
      issues.add({ line: 1, column: required, message: "required column missing" });
  }
  if (new Set(names).size !== names.length) {
    issues.add({ line: 1, column: null, message: "duplicate column names" });
  }
  return issues.count === before;
}
