export interface ImportIssue {
  file: string;
  line: number;
  column: string | null;
  message: string;
}

/**
 * Issues kept per file: a file bad on every line must not hold a million messages, and nobody reads past the first
 * screenful; the rest are counted.
 */
export const MAX_KEPT_ISSUES = 1000;

/** One file's issues: the first {@link MAX_KEPT_ISSUES} in line order, and how many there were. */
export class FileIssues {
  #kept: ImportIssue[] = [];
  #count = 0;

  constructor(readonly file: string) {}

  get count(): number {
    return this.#count;
  }

  add(issue: Omit<ImportIssue, "file">): void {
    this.#count++;
    if (this.#kept.length < MAX_KEPT_ISSUES) this.#kept.push({ file: this.file, ...issue });
  }

  /** Adds issues found apart from the read (its duplicate rows, `count` of them), keeping the first by line. */
  merge(issues: readonly Omit<ImportIssue, "file">[], count: number): void {
    const merged = [...this.#kept, ...issues.map((i) => ({ file: this.file, ...i }))];
    merged.sort((a, b) => a.line - b.line);
    this.#kept = merged.slice(0, MAX_KEPT_ISSUES);
    this.#count += count;
  }

  get kept(): readonly ImportIssue[] {
    return this.#kept;
  }
}
