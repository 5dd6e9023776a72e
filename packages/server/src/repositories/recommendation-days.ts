import type { Explanation, Recommendation } from "@pricing/http-adapter";

/**
 * A run's recommendations as one stored row per date (`recommendation_days`, migration 0019) instead of one row
 * per item: a nightly run of 100 products x 90 days was 9,000 rows under a three-column text primary key, and
 * inserting them cost PostgreSQL more CPU than the worker spent on everything but the plan (bench:scale). A day is
 * one JSON document of columns (`items`) and, apart, its items' explanations, which only `explain` reads parse.
 */
export interface RecommendationDay {
  date: string;
  /** `ItemColumns` as JSON: the day's items in product_id order. */
  items: string;
  /** The items' explanations (or nulls) as a JSON array in the same order; null when none has one. */
  explanations: string | null;
}

/** Every stored field of an item but its date (the row's) and explanation (its own column), in the API's order. */
const FIELDS = [
  "product_id",
  "price",
  "currency",
  "base_price",
  "rule_price",
  "expected_units",
  "expected_revenue",
  "source",
  "model_id",
  "expected_units_p10",
  "expected_units_p90",
  "exploratory",
  "override_id",
  "lowest_price_30d",
] as const satisfies readonly Exclude<keyof Recommendation, "date" | "explanation">[];
type Field = (typeof FIELDS)[number];
type Scalar = Recommendation[Field];

/**
 * Each field's values over the day's items, or the one value when every item has it (a run's currency, source and
 * model id): fields are scalars, so an array always means one value per item. Keeps a 100-product day ~3x smaller.
 */
type ItemColumns = Record<Field, Scalar | Scalar[]>;

/** UTF-8 byte order, which PostgreSQL's C collation and SQLite's BINARY sort the old per-item rows by. */
function byProductId(a: Recommendation, b: Recommendation): number {
  const x = a.product_id;
  const y = b.product_id;
  if (x === y) return 0;
  // UTF-16 code units order astral characters (surrogates) before U+E000-U+FFFF; code points do not.
  for (let i = 0; i < x.length && i < y.length; i++) {
    const cx = x.codePointAt(i) ?? 0;
    const cy = y.codePointAt(i) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  return x.length < y.length ? -1 : 1;
}

function encodeDay(date: string, items: Recommendation[]): RecommendationDay {
  items.sort(byProductId);
  for (let i = 1; i < items.length; i++) {
    // The per-item rows' primary key refused this; a run with two prices for one product and day is a bug.
    if (items[i]?.product_id === items[i - 1]?.product_id) {
      throw new Error(`recommendation_days: product ${items[i]?.product_id} twice on ${date}`);
    }
  }
  const columns = {} as ItemColumns;
  for (const field of FIELDS) {
    const values = items.map((r) => r[field] ?? null);
    const first = values[0];
    columns[field] = values.every((v) => v === first) ? (first ?? null) : values;
  }
  const explained = items.some((r) => r.explanation != null);
  return {
    date,
    items: JSON.stringify(columns),
    explanations: explained ? JSON.stringify(items.map((r) => r.explanation ?? null)) : null,
  };
}

/** A run's recommendations, in any order, as its day rows. Throws on the same product twice on a date. */
export function encodeRecommendationDays(recommendations: readonly Recommendation[]): RecommendationDay[] {
  const byDate = new Map<string, Recommendation[]>();
  for (const r of recommendations) {
    const day = byDate.get(r.date);
    if (day) day.push(r);
    else byDate.set(r.date, [r]);
  }
  return [...byDate].map(([date, items]) => encodeDay(date, items));
}

/**
 * One day row's items (only `productId`'s when given), as the per-item rows read: the same keys in the same order,
 * `explanation` only when `explain` (null where none was stored).
 */
export function decodeRecommendationDay(
  row: { date: string; items: string; explanations?: string | null },
  explain: boolean,
  productId?: string,
): Recommendation[] {
  const columns = JSON.parse(row.items) as ItemColumns;
  const ids = columns.product_id;
  const indices = !Array.isArray(ids)
    ? ids === productId || productId === undefined
      ? [0]
      : []
    : productId === undefined
      ? ids.map((_, i) => i)
      : [ids.indexOf(productId)].filter((i) => i >= 0);
  if (indices.length === 0) return [];
  const explanations =
    explain && row.explanations != null ? (JSON.parse(row.explanations) as (Explanation | null)[]) : null;
  const at = (field: Field, i: number): Scalar => {
    const column = columns[field];
    return Array.isArray(column) ? (column[i] as Scalar) : column;
  };
  return indices.map((i) => {
    const item = {
      product_id: at("product_id", i),
      date: row.date,
      price: at("price", i),
      currency: at("currency", i),
      base_price: at("base_price", i),
      rule_price: at("rule_price", i),
      expected_units: at("expected_units", i),
      expected_revenue: at("expected_revenue", i),
      source: at("source", i),
      model_id: at("model_id", i),
      expected_units_p10: at("expected_units_p10", i),
      expected_units_p90: at("expected_units_p90", i),
      exploratory: at("exploratory", i),
      override_id: at("override_id", i),
      lowest_price_30d: at("lowest_price_30d", i),
    } as Recommendation;
    if (explain) item.explanation = explanations?.[i] ?? null;
    return item;
  });
}
