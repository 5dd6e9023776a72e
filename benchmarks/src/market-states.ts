import {
  addDays,
  type CatalogProduct,
  type Market,
  type MarketProduct,
  type ProductState,
  productState,
} from "@pricing/engine";

/**
 * A scenario product as the catalogue would hold it on the scenario's start date (its season: the horizon), in the
 * scenario's currency and with its price endings (DESIGN §11), so the plan's grid is the market's printable one.
 */
export function catalogProductOf(market: Market, product: MarketProduct): CatalogProduct {
  const { setup } = product;
  return {
    product_id: product.productId,
    currency: market.scenario.currency,
    price_endings: market.scenario.price_endings.length === 0 ? null : market.scenario.price_endings,
    base_price: product.referencePrice,
    unit_cost: product.unitCost,
    min_price: setup.minPrice,
    max_price: setup.maxPrice,
    max_daily_change: setup.maxDailyChange,
    stock: setup.stock,
    season_end: addDays(setup.startDate, setup.horizon - 1),
    updated_at: `${market.scenario.start_date}T00:00:00.000Z`,
  };
}

/** Every product's pricing state on the scenario's start date, from its history: what the API would price from. */
export function marketStates(market: Market): Map<string, ProductState> {
  const history = new Map<string, Market["history"]>();
  for (const row of market.history) {
    const rows = history.get(row.product_id) ?? [];
    rows.push(row);
    history.set(row.product_id, rows);
  }
  return new Map(
    market.products.map((p) => [
      p.productId,
      productState(catalogProductOf(market, p), history.get(p.productId) ?? [], market.scenario.start_date, {
        horizonDays: market.scenario.horizon,
      }),
    ]),
  );
}
