import type { PlannedPrice, PriceExplanation } from "../plan/company-plan.js";

/**
 * A plan's rows as columns: what a planning thread sends back instead of its ~9,000 row objects (18,000 with
 * explanations). Structured-cloning those cost the receiving event loop about 10 ms a plan; the columns' buffers
 * are transferred, not copied, and the strings (product ids, dates, currency, source, model id...) cross once each
 * in a small table. `unpackPlan` gives back the very rows, keys in the same order; a caller that only stores the
 * plan can read the columns without building them.
 */
export interface PackedPlan {
  readonly count: number;
  /** Every distinct string of the plan; `text` holds indices into it. */
  readonly strings: readonly string[];
  /** `TEXT_COLUMNS.length` x count indices into `strings`, column after column: -1 null, -2 absent. */
  readonly text: Int32Array;
  /** `NUMBER_COLUMNS.length` x count doubles, column after column: null (and absent) as NaN. */
  readonly numbers: Float64Array;
  /** Per row, the `FLAG_*` bits: which optional fields it has. */
  readonly flags: Uint8Array;
}

export const TEXT_COLUMNS = [
  "product_id",
  "date",
  "currency",
  "source",
  "model_id",
  "override_id",
  "binding",
] as const;

export const NUMBER_COLUMNS = [
  "price",
  "base_price",
  "rule_price",
  "expected_units",
  "expected_revenue",
  "lowest_price_30d",
  "expected_units_p10",
  "expected_units_p90",
  "explanation.rule_price",
  "explanation.weekday_index",
  "explanation.stock_cover_days",
  "explanation.elasticity",
  "explanation.elasticity_se",
  "explanation.observed_price_low",
  "explanation.observed_price_high",
] as const;

export const FLAG_OVERRIDE = 1;
export const FLAG_JUMP_DAMPED = 2;
/** expected_units_p10, expected_units_p90 and exploratory: every pricer gives the three together. */
export const FLAG_BAND = 4;
export const FLAG_EXPLORATORY = 8;
export const FLAG_EXPLANATION = 16;

const ABSENT = -2;

/** A row's keys in the order `planPrices` builds them, given which optional fields it has. */
function keysOf(flags: number): string {
  return [
    "product_id,date,price,currency,base_price,rule_price,expected_units,expected_revenue,lowest_price_30d",
    flags & FLAG_OVERRIDE ? ",override_id" : "",
    flags & FLAG_JUMP_DAMPED ? ",jump_damped" : "",
    ",source,model_id",
    flags & FLAG_BAND ? ",expected_units_p10,expected_units_p90,exploratory" : "",
    flags & FLAG_EXPLANATION ? ",explanation" : "",
  ].join("");
}
const KEYS = Array.from({ length: 32 }, (_, f) => keysOf(f));
const EXPLANATION_KEYS =
  "rule_price,weekday_index,stock_cover_days,elasticity,elasticity_se,observed_price_range,binding";

/**
 * The rows as columns; null when a row is not one `unpackPlan` would give back as it is (a field it does not know,
 * keys in another order, a NaN where null would be read): the caller then sends the rows themselves.
 */
export function packPlan(rows: readonly PlannedPrice[]): PackedPlan | null {
  const count = rows.length;
  const strings: string[] = [];
  const index = new Map<string, number>();
  const text = new Int32Array(TEXT_COLUMNS.length * count);
  const numbers = new Float64Array(NUMBER_COLUMNS.length * count);
  const flags = new Uint8Array(count);
  // Null as NaN: a number that is NaN itself, or not a number, would come back as something else.
  let faithful = true;
  /** `s`'s index; -1 for null where a null is read back, -2 for absent where absence is. */
  const str = (s: string | null | undefined, missing: number): number => {
    if (typeof s !== "string") {
      if (!((s === null && missing === -1) || (s === undefined && missing === ABSENT))) faithful = false;
      return missing;
    }
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const num = (x: number | null | undefined, nullable: boolean): number => {
    if (x == null) {
      if (x === null && !nullable) faithful = false;
      return Number.NaN;
    }
    if (typeof x !== "number" || Number.isNaN(x)) faithful = false;
    return x;
  };
  const n = count;
  for (let i = 0; i < count; i++) {
    const r = rows[i] as PlannedPrice;
    let f = 0;
    if (r.override_id !== undefined) f |= FLAG_OVERRIDE;
    if (r.jump_damped !== undefined) {
      if (r.jump_damped !== true) return null;
      f |= FLAG_JUMP_DAMPED;
    }
    if (r.expected_units_p10 !== undefined) {
      f |= FLAG_BAND;
      if (typeof r.exploratory !== "boolean") return null;
      if (r.exploratory) f |= FLAG_EXPLORATORY;
    }
    const e = r.explanation;
    if (e !== undefined) f |= FLAG_EXPLANATION;
    if (Object.keys(r).join() !== KEYS[f]) return null;
    flags[i] = f;
    text[i] = str(r.product_id, 0);
    text[n + i] = str(r.date, 0);
    text[2 * n + i] = str(r.currency, 0);
    text[3 * n + i] = str(r.source, 0);
    text[4 * n + i] = str(r.model_id, -1);
    text[5 * n + i] = str(r.override_id, ABSENT);
    numbers[i] = num(r.price, false);
    numbers[n + i] = num(r.base_price, false);
    numbers[2 * n + i] = num(r.rule_price, false);
    numbers[3 * n + i] = num(r.expected_units, false);
    numbers[4 * n + i] = num(r.expected_revenue, false);
    numbers[5 * n + i] = num(r.lowest_price_30d, true);
    numbers[6 * n + i] = num(r.expected_units_p10, false);
    numbers[7 * n + i] = num(r.expected_units_p90, false);
    if (e === undefined) {
      text[6 * n + i] = ABSENT;
      for (let c = 8; c < 15; c++) numbers[c * n + i] = Number.NaN;
      continue;
    }
    const range = e.observed_price_range;
    if (Object.keys(e).join() !== EXPLANATION_KEYS || !Array.isArray(range) || range.length !== 2) {
      return null;
    }
    text[6 * n + i] = str(e.binding, -1);
    numbers[8 * n + i] = num(e.rule_price, false);
    numbers[9 * n + i] = num(e.weekday_index, false);
    numbers[10 * n + i] = num(e.stock_cover_days, true);
    numbers[11 * n + i] = num(e.elasticity, true);
    numbers[12 * n + i] = num(e.elasticity_se, true);
    numbers[13 * n + i] = num(range[0], false);
    numbers[14 * n + i] = num(range[1], false);
  }
  return faithful ? { count, strings, text, numbers, flags } : null;
}

/** The buffers to transfer with a packed plan (they are unusable in the sender afterwards). */
export function packedBuffers(plan: PackedPlan): ArrayBuffer[] {
  return [plan.text.buffer, plan.numbers.buffer, plan.flags.buffer] as ArrayBuffer[];
}

type Draft = { -readonly [K in keyof PlannedPrice]: PlannedPrice[K] };

/** The rows `packPlan` packed, field for field and keys in the same order. */
export function unpackPlan(plan: PackedPlan): PlannedPrice[] {
  const { count: n, strings, text, numbers, flags } = plan;
  const str = (i: number): string | null => (i < 0 ? null : (strings[i] as string));
  const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);
  const rows = new Array<PlannedPrice>(n);
  for (let i = 0; i < n; i++) {
    const f = flags[i] as number;
    // Built field by field in `planPrices`' order, so the rows' JSON is the same.
    const row = {
      product_id: strings[text[i] as number],
      date: strings[text[n + i] as number],
      price: numbers[i],
      currency: strings[text[2 * n + i] as number],
      base_price: numbers[n + i],
      rule_price: numbers[2 * n + i],
      expected_units: numbers[3 * n + i],
      expected_revenue: numbers[4 * n + i],
      lowest_price_30d: orNull(numbers[5 * n + i] as number),
    } as Draft;
    if (f & FLAG_OVERRIDE) row.override_id = strings[text[5 * n + i] as number] as string;
    if (f & FLAG_JUMP_DAMPED) row.jump_damped = true;
    row.source = strings[text[3 * n + i] as number] as PlannedPrice["source"];
    row.model_id = str(text[4 * n + i] as number);
    if (f & FLAG_BAND) {
      row.expected_units_p10 = numbers[6 * n + i] as number;
      row.expected_units_p90 = numbers[7 * n + i] as number;
      row.exploratory = (f & FLAG_EXPLORATORY) !== 0;
    }
    if (f & FLAG_EXPLANATION) {
      row.explanation = {
        rule_price: numbers[8 * n + i] as number,
        weekday_index: numbers[9 * n + i] as number,
        stock_cover_days: orNull(numbers[10 * n + i] as number),
        elasticity: orNull(numbers[11 * n + i] as number),
        elasticity_se: orNull(numbers[12 * n + i] as number),
        observed_price_range: [numbers[13 * n + i] as number, numbers[14 * n + i] as number],
        binding: str(text[6 * n + i] as number) as PriceExplanation["binding"],
      };
    }
    rows[i] = row;
  }
  return rows;
}
