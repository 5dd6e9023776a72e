import type { CsvRow } from "./csv-rows.js";
import type { FileIssues } from "./import-issues.js";

interface NumberRule {
  min?: number;
  max?: number;
  positive?: boolean;
  integer?: boolean;
}

/** Reads typed cells from one CSV row, collecting an issue per bad cell instead of stopping at the first. */
export class RowReader {
  /** Whether some cell of the row was bad. */
  failed = false;

  constructor(
    private readonly row: CsvRow,
    private readonly issues: FileIssues,
  ) {}

  fail(column: string | null, message: string): void {
    this.failed = true;
    this.issues.add({ line: this.row.line, column, message });
  }

  raw(column: string): string | undefined {
    return this.row.values[column];
  }

  text(column: string, opts: { required: true; max?: number; pattern?: RegExp; hint?: string }): string;
  text(
    column: string,
    opts?: { required?: false; max?: number; pattern?: RegExp; hint?: string },
  ): string | null;
  text(
    column: string,
    opts: { required?: boolean; max?: number; pattern?: RegExp; hint?: string } = {},
  ): string | null {
    const value = this.raw(column);
    if (value === undefined) {
      if (opts.required) this.fail(column, "is required");
      return opts.required ? "" : null;
    }
    if (opts.max !== undefined && value.length > opts.max)
      this.fail(column, `must be at most ${opts.max} characters`);
    else if (opts.pattern && !opts.pattern.test(value))
      this.fail(column, opts.hint ?? "has an invalid format");
    return value;
  }

  number(column: string, opts: NumberRule & { required: true }): number;
  number(column: string, opts?: NumberRule & { required?: false }): number | null;
  number(column: string, opts: NumberRule & { required?: boolean } = {}): number | null {
    const value = this.raw(column);
    if (value === undefined) {
      if (opts.required) this.fail(column, "is required");
      return opts.required ? 0 : null;
    }
    const n = Number(value);
    if (!/^-?\d+(\.\d+)?$/.test(value) || !Number.isFinite(n)) {
      this.fail(column, `must be a number, got "${value.slice(0, 32)}"`);
      return null;
    }
    if (opts.integer && !Number.isInteger(n)) this.fail(column, "must be a whole number");
    else if (opts.positive && n <= 0) this.fail(column, "must be greater than 0");
    else if (opts.min !== undefined && n < opts.min) this.fail(column, `must be at least ${opts.min}`);
    else if (opts.max !== undefined && n > opts.max) this.fail(column, `must be at most ${opts.max}`);
    return n;
  }

  date(column: string, opts: { required: true }): string;
  date(column: string, opts?: { required?: false }): string | null;
  date(column: string, opts: { required?: boolean } = {}): string | null {
    const value = this.raw(column);
    if (value === undefined) {
      if (opts.required) this.fail(column, "is required");
      return opts.required ? "" : null;
    }
    if (!isDate(value)) {
      this.fail(column, `must be a date YYYY-MM-DD, got "${value.slice(0, 32)}"`);
      return null;
    }
    return value;
  }
}

/**
 * Dates seen valid lately: a sales file repeats a few thousand dates over millions of rows, and building a Date
 * for each row was a tenth of an import's time. Emptied when full, so it stays small.
 */
const validDates = new Set<string>();
const VALID_DATES_KEPT = 10_000;

function isDate(value: string): boolean {
  if (validDates.has(value)) return true;
  const parsed = new Date(`${value}T00:00:00Z`);
  const valid =
    /^\d{4}-\d{2}-\d{2}$/.test(value) &&
    !Number.isNaN(parsed.getTime()) &&
    parsed.toISOString().startsWith(value);
  if (valid) {
    if (validDates.size >= VALID_DATES_KEPT) validDates.clear();
    validDates.add(value);
  }
  return valid;
}
