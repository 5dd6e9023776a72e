/**
 * Price endings (DESIGN §11) as the `companies` and `products` rows store them: JSON arrays of endings as text, the
 * same on SQLite and PostgreSQL. Null: none set (a company prints any minor unit; a product takes its company's).
 */
export function readEndings(text: string | null): string[] | null {
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === "string") : null;
}

export function writeEndings(endings: readonly string[] | null): string | null {
  return endings === null ? null : JSON.stringify(endings);
}
