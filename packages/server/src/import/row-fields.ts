import type { CsvRow, ImportIssue } from "./csv-table.js";

/** Reads typed cells from one CSV row, collecting an issue per bad cell instead of stopping at the first. */
export class RowReader {
  constructor(
    private readonly file: string,
    private readonly row: CsvRow,
    readonly issues: ImportIssue[],
  ) {}

  fail(column: string | null, message: string): void {
    this.issues.push({ file: this.file, line: this.row.line, column, message });
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

  number(
    column: string,
    opts: { required: true; min?: number; positive?: boolean; integer?: boolean },
  ): number;
  number(
    column: string,
    opts?: { required?: false; min?: number; positive?: boolean; integer?: boolean },
  ): number | null;
  number(
    column: string,
    opts: { required?: boolean; min?: number; positive?: boolean; integer?: boolean } = {},
  ): number | null {
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
    const parsed = new Date(`${value}T00:00:00Z`);
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
      Number.isNaN(parsed.getTime()) ||
      !parsed.toISOString().startsWith(value)
    ) {
      this.fail(column, `must be a date YYYY-MM-DD, got "${value.slice(0, 32)}"`);
      return null;
    }
    return value;
  }
}
