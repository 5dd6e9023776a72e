import { DEPRECATED_METRIC_NAMES, type ModelMetrics } from "@pricing/http-adapter";

/**
 * The API's metrics: the numbers (the engine leaves unmeasured ones null), and the structured `upliftIntervalPct`
 * (from the safety report). A renamed metric goes out under both names while the old one is deprecated, whichever
 * the artifact carries.
 */
export function numericMetrics(metrics: unknown): ModelMetrics {
  const out: ModelMetrics = numbersOf(metrics);
  if (out.upliftPct !== undefined && metrics !== null && typeof metrics === "object") {
    out.upliftIntervalPct = upliftInterval(out.upliftPct, (metrics as { safety?: unknown }).safety);
  }
  return out;
}

/**
 * The uplift's interval over the plausible models: low is the rule-relative gain summing each product's worst case
 * (`worstCaseGain`, the products the safety check put on the rule count 0), high its mirror about the point, since
 * the plausible band is symmetric in the parameters. Null without a safety report or a rule margin.
 */
function upliftInterval(upliftPct: number, safety: unknown): { low: number; high: number } | null {
  const products = (safety as { products?: unknown } | undefined)?.products;
  if (!Array.isArray(products)) return null;
  let gain = 0;
  let rule = 0;
  for (const p of products as { decision?: string; worstCaseGain?: unknown; ruleMargin?: unknown }[]) {
    if (typeof p.ruleMargin !== "number") continue;
    rule += p.ruleMargin;
    if (p.decision === "rl" && typeof p.worstCaseGain === "number") gain += p.worstCaseGain;
  }
  if (!(rule > 0)) return null;
  const low = Math.min(upliftPct, (100 * gain) / rule);
  // Rounded outwards to cents of a percent (past float noise), so the interval still holds the unrounded point.
  const down = (x: number) => Math.floor(x * 100 + 1e-9) / 100;
  const up = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
  return { low: down(low), high: up(2 * upliftPct - low) };
}

function numbersOf(metrics: unknown): Record<string, number> {
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
