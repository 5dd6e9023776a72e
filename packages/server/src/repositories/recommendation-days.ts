import { endianness } from "node:os";
import {
  FLAG_BAND,
  FLAG_EXPLANATION,
  FLAG_EXPLORATORY,
  FLAG_OVERRIDE,
  NUMBER_COLUMNS,
  type PackedPlan,
  TEXT_COLUMNS,
} from "@pricing/engine";
import type { Explanation, Recommendation } from "@pricing/http-adapter";

/**
 * A run's recommendations as one stored row per date (`recommendation_days`, migration 0019) instead of one row
 * per item: a nightly run of 100 products x 90 days was 9,000 rows under a three-column text primary key, and
 * inserting them cost PostgreSQL more CPU than the worker spent on everything but the plan (bench:scale). A day is
 * one JSON document of columns (`items`) and, apart, its items' explanations, which only `explain` reads parse.
 */
export interface RecommendationDay {
  date: string;
  /** `Columns` as JSON: the day's items in product_id order. */
  items: string;
  /** The items' explanations as `Columns` in the same order; null when none has one. */
  explanations: string | null;
}

/** An item's text and boolean fields, stored as JSON (`Columns`). */
const TEXT_FIELDS = ["product_id", "currency", "source", "model_id", "exploratory", "override_id"] as const;
/** An item's numbers, stored as doubles (`numbers`): null as NaN, which JSON also wrote as null before. */
const NUMBER_FIELDS = [
  "price",
  "base_price",
  "rule_price",
  "expected_units",
  "expected_revenue",
  "expected_units_p10",
  "expected_units_p90",
  "lowest_price_30d",
] as const;
type TextField = (typeof TEXT_FIELDS)[number];
type NumberField = (typeof NUMBER_FIELDS)[number];
/** Fails to compile when an item gains a field that is stored nowhere. */
const EVERY_FIELD_STORED: [
  Exclude<keyof Recommendation, TextField | NumberField | "date" | "explanation">,
] extends [never]
  ? true
  : never = true;

/** An explanation's numbers (its observed price range as two), stored as doubles. */
const EXPLANATION_NUMBERS = [
  "rule_price",
  "weekday_index",
  "stock_cover_days",
  "elasticity",
  "elasticity_se",
  "observed_price_low",
  "observed_price_high",
] as const;

/**
 * Each text field's values over the day's items, or the one value when every item has it (a run's currency, source
 * and model id): the values are scalars, so an array always means one per item. The numbers are doubles, field
 * after field, in base64: formatting and parsing 72,000 decimal numbers a run was most of the worker's and the
 * read's cost of a JSON document, and doubles come back bit for bit.
 */
type Columns<F extends string> = Record<F, Scalar | Scalar[]> & { numbers: string };
type Scalar = string | number | boolean | null;

if (!EVERY_FIELD_STORED || endianness() !== "LE") {
  // The doubles are the platform's Float64Array bytes; every platform Node supports today is little-endian.
  throw new Error("recommendation-days: a big-endian platform would read the stored doubles wrong");
}

function textColumn(values: Scalar[]): Scalar | Scalar[] {
  const first = values[0] ?? null;
  for (const v of values) if (v !== first) return values;
  return first;
}

/** `count` items' doubles, field after field: `put(doubles, i)` writes item i's at i, count + i, 2 count + i... */
function encodeNumbers(
  fields: number,
  count: number,
  put: (doubles: Float64Array, i: number) => void,
): string {
  const doubles = new Float64Array(fields * count);
  for (let i = 0; i < count; i++) put(doubles, i);
  return Buffer.from(doubles.buffer).toString("base64");
}

function decodeNumbers(base64: string): Float64Array {
  const bytes = Buffer.from(base64, "base64");
  // Copied out of Node's shared pool, whose offsets need not be multiples of 8.
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

const numberOrNull = (x: number | undefined): number | null =>
  x === undefined || Number.isNaN(x) ? null : x;

/** UTF-8 byte order, which PostgreSQL's C collation and SQLite's BINARY sort the old per-item rows by. */
function byProductId(a: Recommendation, b: Recommendation): number {
  return byCodePoints(a.product_id, b.product_id);
}

function byCodePoints(x: string, y: string): number {
  if (x === y) return 0;
  // UTF-16 code units order astral characters (surrogates) before U+E000-U+FFFF; code points do not.
  for (let i = 0; i < x.length && i < y.length; i++) {
    const cx = x.codePointAt(i) ?? 0;
    const cy = y.codePointAt(i) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  return x.length < y.length ? -1 : 1;
}

function encodeExplanations(items: readonly Recommendation[]): string | null {
  if (!items.some((r) => r.explanation != null)) return null;
  const columns = {
    binding: textColumn(items.map((r) => r.explanation?.binding ?? null)),
    // No explanation: a NaN rule_price, which an explanation never has.
    numbers: encodeNumbers(EXPLANATION_NUMBERS.length, items.length, (d, i) => {
      const e = items[i]?.explanation;
      const n = items.length;
      // In EXPLANATION_NUMBERS' order (property by property: a keyed read per value cost twice as much).
      d[i] = e?.rule_price ?? Number.NaN;
      d[n + i] = e?.weekday_index ?? Number.NaN;
      d[2 * n + i] = e?.stock_cover_days ?? Number.NaN;
      d[3 * n + i] = e?.elasticity ?? Number.NaN;
      d[4 * n + i] = e?.elasticity_se ?? Number.NaN;
      d[5 * n + i] = e?.observed_price_range[0] ?? Number.NaN;
      d[6 * n + i] = e?.observed_price_range[1] ?? Number.NaN;
    }),
  } satisfies Columns<"binding">;
  return JSON.stringify(columns);
}

/** The per-item rows' primary key refused this; a run with two prices for one product and day is a bug. */
function refuseTwice(date: string, ids: (i: number) => string, count: number): void {
  for (let i = 1; i < count; i++) {
    if (ids(i) === ids(i - 1)) throw new Error(`recommendation_days: product ${ids(i)} twice on ${date}`);
  }
}

function encodeDay(date: string, items: Recommendation[]): RecommendationDay {
  items.sort(byProductId);
  refuseTwice(date, (i) => (items[i] as Recommendation).product_id, items.length);
  const columns = { numbers: "" } as Columns<TextField>;
  for (const field of TEXT_FIELDS) columns[field] = textColumn(items.map((r) => r[field] ?? null));
  const n = items.length;
  columns.numbers = encodeNumbers(NUMBER_FIELDS.length, n, (d, i) => {
    const r = items[i];
    if (r === undefined) return;
    // In NUMBER_FIELDS' order.
    d[i] = r.price;
    d[n + i] = r.base_price;
    d[2 * n + i] = r.rule_price;
    d[3 * n + i] = r.expected_units;
    d[4 * n + i] = r.expected_revenue;
    d[5 * n + i] = r.expected_units_p10 ?? Number.NaN;
    d[6 * n + i] = r.expected_units_p90 ?? Number.NaN;
    d[7 * n + i] = r.lowest_price_30d ?? Number.NaN;
  });
  return { date, items: JSON.stringify(columns), explanations: encodeExplanations(items) };
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

const column = (name: (typeof NUMBER_COLUMNS)[number] | (typeof TEXT_COLUMNS)[number]): number =>
  Math.max(NUMBER_COLUMNS.indexOf(name as never), TEXT_COLUMNS.indexOf(name as never));
/** A packed plan's columns of the stored numbers, in NUMBER_FIELDS' order. */
const PACKED_NUMBERS = NUMBER_FIELDS.map((f) => column(f));
// The engine's explanation columns come in EXPLANATION_NUMBERS' order (the recommendation-days test holds both).
const PACKED_EXPLANATION_NUMBERS = NUMBER_COLUMNS.flatMap((c, i) =>
  c.startsWith("explanation.") ? [i] : [],
);
const [ID, DATE, CURRENCY, SOURCE, MODEL, OVERRIDE, BINDING] = (
  ["product_id", "date", "currency", "source", "model_id", "override_id", "binding"] as const
).map(column) as [number, number, number, number, number, number, number];

/** The numbers of one day's items `rows` (rows of the packed plan) from the plan's `columns`, as `encodeNumbers`. */
function packedNumbers(plan: PackedPlan, columns: readonly number[], rows: Int32Array): string {
  const n = rows.length;
  const doubles = new Float64Array(columns.length * n);
  for (let f = 0; f < columns.length; f++) {
    const from = (columns[f] as number) * plan.count;
    for (let i = 0; i < n; i++) doubles[f * n + i] = plan.numbers[from + (rows[i] as number)] as number;
  }
  return Buffer.from(doubles.buffer).toString("base64");
}

/**
 * `encodeRecommendationDays` of a plan as the engine's planning threads send it, without building its items: the
 * same rows byte for byte (the API's item has null where the plan's row has no field).
 */
export function encodePackedDays(plan: PackedPlan): RecommendationDay[] {
  const { count, strings, text, flags } = plan;
  const str = (column: number, row: number): string | null => {
    const k = text[column * count + row] as number;
    return k < 0 ? null : (strings[k] as string);
  };
  const byDate = new Map<number, number[]>();
  for (let r = 0; r < count; r++) {
    const d = text[DATE * count + r] as number;
    const day = byDate.get(d);
    if (day) day.push(r);
    else byDate.set(d, [r]);
  }
  return [...byDate].map(([d, list]) => {
    const date = strings[d] as string;
    const id = (r: number) => strings[text[ID * count + r] as number] as string;
    const rows = Int32Array.from(list.sort((a, b) => byCodePoints(id(a), id(b))));
    refuseTwice(date, (i) => id(rows[i] as number), rows.length);
    const all = [...rows];
    // Keys in `encodeDay`'s order, numbers first.
    const columns = {
      numbers: packedNumbers(plan, PACKED_NUMBERS, rows),
      product_id: textColumn(all.map(id)),
      currency: textColumn(all.map((r) => str(CURRENCY, r))),
      source: textColumn(all.map((r) => str(SOURCE, r))),
      model_id: textColumn(all.map((r) => str(MODEL, r))),
      exploratory: textColumn(
        all.map((r) =>
          (flags[r] as number) & FLAG_BAND ? ((flags[r] as number) & FLAG_EXPLORATORY) !== 0 : null,
        ),
      ),
      override_id: textColumn(
        all.map((r) => ((flags[r] as number) & FLAG_OVERRIDE ? str(OVERRIDE, r) : null)),
      ),
    } satisfies Columns<TextField>;
    const explained = all.some((r) => ((flags[r] as number) & FLAG_EXPLANATION) !== 0);
    const explanations = explained
      ? JSON.stringify({
          binding: textColumn(all.map((r) => str(BINDING, r))),
          numbers: packedNumbers(plan, PACKED_EXPLANATION_NUMBERS, rows),
        } satisfies Columns<"binding">)
      : null;
    return { date, items: JSON.stringify(columns), explanations };
  });
}

function explanationsReader(json: string, count: number): (i: number) => Explanation | null {
  const columns = JSON.parse(json) as Columns<"binding">;
  const n = decodeNumbers(columns.numbers);
  const at = (f: number, i: number) => numberOrNull(n[f * count + i]);
  return (i) => {
    const rulePrice = at(0, i);
    if (rulePrice === null) return null;
    const binding = Array.isArray(columns.binding) ? columns.binding[i] : columns.binding;
    return {
      rule_price: rulePrice,
      weekday_index: at(1, i),
      stock_cover_days: at(2, i),
      elasticity: at(3, i),
      elasticity_se: at(4, i),
      observed_price_range: [at(5, i), at(6, i)],
      binding,
    } as Explanation;
  };
}

/**
 * One day row's items (only `productId`'s when given), as the per-item rows read: the same keys in the same order
 * (an explanation's in the API's), `explanation` only when `explain` (null where none was stored).
 */
export function decodeRecommendationDay(
  row: { date: string; items: string; explanations?: string | null },
  explain: boolean,
  productId?: string,
): Recommendation[] {
  const columns = JSON.parse(row.items) as Columns<TextField>;
  const ids = columns.product_id;
  const count = Array.isArray(ids) ? ids.length : 1;
  const indices = !Array.isArray(ids)
    ? ids === productId || productId === undefined
      ? [0]
      : []
    : productId === undefined
      ? ids.map((_, i) => i)
      : [ids.indexOf(productId)].filter((i) => i >= 0);
  if (indices.length === 0) return [];
  const n = decodeNumbers(columns.numbers);
  const num = (f: number, i: number) => numberOrNull(n[f * count + i]);
  const text = (field: TextField, i: number): Scalar => {
    const column = columns[field];
    return Array.isArray(column) ? (column[i] ?? null) : column;
  };
  const explanation =
    explain && row.explanations != null ? explanationsReader(row.explanations, count) : null;
  return indices.map((i) => {
    const item = {
      product_id: text("product_id", i),
      date: row.date,
      price: num(0, i),
      currency: text("currency", i),
      base_price: num(1, i),
      rule_price: num(2, i),
      expected_units: num(3, i),
      expected_revenue: num(4, i),
      source: text("source", i),
      model_id: text("model_id", i),
      expected_units_p10: num(5, i),
      expected_units_p90: num(6, i),
      exploratory: text("exploratory", i),
      override_id: text("override_id", i),
      lowest_price_30d: num(7, i),
    } as Recommendation;
    if (explain) item.explanation = explanation?.(i) ?? null;
    return item;
  });
}
