import { builtinScenarios } from "../../market/builtin-scenarios.js";
import { generateMarket } from "../../market/generate-market.js";
import type { CatalogProduct } from "../../plan/product-state.js";

/** A catalogue row as a server holds it: the base price, default guardrails, unlimited stock. */
export function catalogueProduct(id: string, basePrice: number): CatalogProduct {
  return {
    product_id: id,
    currency: "EUR",
    base_price: basePrice,
    unit_cost: basePrice * 0.3,
    min_price: null,
    max_price: null,
    max_daily_change: null,
    stock: null,
    season_end: null,
    updated_at: "2020-01-01T00:00:00.000Z",
  };
}

/** A built-in market as a company: its history, its products as catalogue rows, and its last sales date. */
export function syntheticCompany(scenarioName: string) {
  const scenario = builtinScenarios().find((s) => s.name === scenarioName);
  if (scenario === undefined) throw new Error(`no built-in scenario ${scenarioName}`);
  const market = generateMarket(scenario);
  const products = market.products.map((p) => catalogueProduct(p.productId, p.referencePrice));
  return { market, products, last: market.history.at(-1)?.date ?? "" };
}
