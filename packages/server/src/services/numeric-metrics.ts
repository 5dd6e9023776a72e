/** Numeric metrics only: the API's metrics are a map of numbers, and the engine leaves unmeasured ones null. */
export function numericMetrics(metrics: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (metrics === null || typeof metrics !== "object") return out;
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return out;
}
