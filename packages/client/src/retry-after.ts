/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
 * Returns the wait in milliseconds (never negative), or null when absent or unparseable.
 *
 * @param nowMs the caller's clock, epoch milliseconds, so that an HTTP-date is measured against injected time.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date always names its month; this keeps Date.parse from reading "-3" or "2026" as a year.
  if (!/[A-Za-z]{3}/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
