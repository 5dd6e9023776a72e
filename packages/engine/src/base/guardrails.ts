/** A product's price guardrails (currency units), inclusive. */
export interface Guardrails {
  readonly minPrice: number;
  readonly maxPrice: number;
}

/** Slack on the guardrails: a price rounded to the minor unit at a bound must not fall outside it. */
export const GUARDRAIL_TOLERANCE = 1e-9;

/** The engine's one "inside the guardrails" check (bounds inclusive, up to `GUARDRAIL_TOLERANCE`). */
export function insideGuardrails(price: number, guardrails: Guardrails): boolean {
  return (
    price >= guardrails.minPrice - GUARDRAIL_TOLERANCE && price <= guardrails.maxPrice + GUARDRAIL_TOLERANCE
  );
}

/** The engine's one guardrail filter: the prices of `prices` (in order) inside the guardrails. */
export function insideGuardrailsOnly(prices: readonly number[], guardrails: Guardrails): number[] {
  return prices.filter((p) => insideGuardrails(p, guardrails));
}
