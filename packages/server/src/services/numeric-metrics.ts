import { DEPRECATED_METRIC_NAMES } from "@pricing/http-adapter";

/**
 * Numeric metrics only: the API's metrics are a map of numbers, and the engine leaves unmeasured ones null. A
 * renamed metric goes out under both names while the old one is deprecated, whichever the artifact carries.
 */
export function numericMetrics(metrics: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (metrics === null || typeof metrics !== "object") return out;
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  for (const [old, current] of Object.entries(DEPRECATED_METRIC_NAMES)) {
    const value = out[current] ?? out[old];
    if (value !== undefined) {
      out[current] = value;
      out[old] = value;
    }
  }
  return out;
}
