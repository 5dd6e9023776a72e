import { addDays, daysBetween, weekdayOf } from "../base/calendar.js";
import { roundToMinor } from "../base/currency.js";
import { packedMap } from "../base/packed-map.js";
import type { FittedDemand } from "../demand/fit-demand.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import {
  boundPrice,
  expectedUnitsOn,
  type PriceBinding,
  priceBinding,
  ruleDay,
  ruleRawPrice,
  unboundedRulePrice,
} from "./day-price.js";
import { dampedPrice, isJump, movesFar } from "./jump-guard.js";
import {
  LOWEST_PRICE_DAYS,
  narrowedState,
  overrideOn,
  type PriceOverride,
  type ProductState,
  seasonLastDay,
  sellsOn,
} from "./product-state.js";

/** What backs a plan: a loaded policy with the slot it came from, or the rule. */
export type ActivePolicy =
  | { readonly source: "approved" | "latest"; readonly modelId: string; readonly policy: RlPolicy }
  | { readonly source: "rule"; readonly modelId: null; readonly policy: null };

export type PlanSource = ActivePolicy["source"];

/** One product's price on one date, as the API serves it. */
export interface PlannedPrice {
  readonly product_id: string;
  readonly date: string;
  /** Currency units, printable: the currency's minor unit and the product's endings (DESIGN §11). */
  readonly price: number;
  readonly currency: string;
  readonly base_price: number;
  /** What the rule would charge (guardrails, max daily change and endings applied), printable. */
  readonly rule_price: number;
  /** Units expected to sell that day, capped by the stock left (4 decimals). */
  readonly expected_units: number;
  readonly expected_revenue: number;
  /**
   * The lowest price of the product on the 30 days before `date` (the history's, then the plan's own earlier days);
   * null where none is known (DESIGN §11).
   */
  readonly lowest_price_30d: number | null;
  /** "rule" where the policy does not cover the product or date. */
  readonly source: PlanSource | "override";
  readonly model_id: string | null;
  /** Present where a partner override is in force on the date (`ProductState.overrides`): its id. */
  readonly override_id?: string;
  /**
   * Present where an online learner or an advisor priced: units at the 10th / 90th percentile (parameter and
   * sales noise), with p10 <= expected_units <= p90.
   */
  readonly expected_units_p10?: number;
  readonly expected_units_p90?: number;
  /** Present with p10/p90: the price was chosen partly to learn (or leaves the prices the history sold at). */
  readonly exploratory?: boolean;
  /**
   * Present (true) where the jump guard damped the model's or learner's price: that plan day moved many products far
   * from the day before (`plan/jump-guard.ts`).
   */
  readonly jump_damped?: boolean;
  /** Present where the plan was asked to explain (`PlanInput.explain`): why the price is what it is. */
  readonly explanation?: PriceExplanation;
}

/** Why a planned price is what it is, in plain data (it crosses from the planning threads and is stored as JSON). */
export interface PriceExplanation {
  /**
   * The rule's own price before the guardrails and the max daily change (base price x weekday index ^ k x stock
   * pacing), on the currency's minor unit; the row's `rule_price` is this price bound.
   */
  readonly rule_price: number;
  /** The rule's weekday index of the date: units sold that weekday relative to the average day (1 without history). */
  readonly weekday_index: number;
  /**
   * Days the stock at the start of the date lasts at the date's expected units (stock / expected_units); null when
   * the stock is unlimited or nothing is expected to sell.
   */
  readonly stock_cover_days: number | null;
  /** The demand fit's price elasticity and its standard error; null when the fit does not know the product. */
  readonly elasticity: number | null;
  readonly elasticity_se: number | null;
  /** Lowest and highest price the product's history sold at; the base price alone without history. */
  readonly observed_price_range: readonly [number, number];
  /**
   * The constraint that moved the price away from what its pricer (policy, learner or rule) chose: a guardrail, the
   * max daily change, or the exploration cap on a policy's price or the jump guard (`exploration_limit`); null when none did.
   */
  readonly binding: PriceBinding | null;
}

/** A known promotion of one product on one date (DESIGN.md §9): `promoted` the share of the day promoted, in [0, 1]. */
export interface PlannedPromotion {
  readonly product_id: string;
  readonly date: string;
  readonly promoted: number;
}

/** A learner's price for one product on one date, before today's guardrails and max daily change. */
export interface LearnedPrice {
  readonly price: number;
  /** Expected units at that price with the stock left, and their 10th / 90th percentiles. */
  readonly expectedUnits: number;
  readonly unitsP10: number;
  readonly unitsP90: number;
  readonly exploratory: boolean;
}

/**
 * An online learner that prices the products it covers in place of the active policy (`learn/` implements it):
 * `day` counts from the plan's today, `stock` is the plan's rolled-forward stock (Infinity when unlimited),
 * `rulePrice` what the rule would charge that day (the learner departs from it only on enough evidence).
 */
export interface OnlinePricer {
  readonly modelId: string;
  priceOn(
    state: ProductState,
    date: string,
    day: number,
    stock: number,
    rulePrice?: number,
  ): LearnedPrice | null;
}

/**
 * What the plan asks, where given, of a price the active policy or the rule chose (`learn/` implements it): the
 * exploration cap and jump guard, and the units' uncertainty band. Plain methods over the plan's own state.
 */
export interface PlanAdvisor {
  /**
   * The price moved inside the range the company's exploration setting allows, widened to include `rulePrice` (the
   * jump guard: never tighter than the rule the policy replaces).
   */
  cap(state: ProductState, price: number, rulePrice: number): number;
  /** Whether a price lies outside the prices the product's history has sold at. */
  outside(state: ProductState, price: number): boolean;
  /**
   * The 10th / 90th percentile of the day's units at `price` with `stock` left and a share `promoted` of the day
   * promoted (parameter and sales noise).
   */
  band(
    state: ProductState,
    date: string,
    price: number,
    stock: number,
    promoted?: number,
  ): { p10: number; p90: number };
}

export interface PlanInput {
  /** The company's today: the plan starts here, whatever `startDate` says. */
  readonly today: string;
  /** Inclusive dates of the rows returned, both >= today. */
  readonly startDate: string;
  readonly endDate: string;
  readonly products: readonly ProductState[];
  readonly active: ActivePolicy;
  /**
   * Fitted demand for expected units of prices the policy did not choose (called only when one needs it); null
   * uses the history's daily volume.
   */
  readonly fit: () => FittedDemand | null;
  /**
   * Prices the products it covers under its model id, reported as the active source (`rule`, model id null, when
   * no model serves: the learner starts from the rule's prices).
   */
  readonly learner?: OnlinePricer;
  /** Caps the policy's prices (never the rule's) and gives the rows it prices p10/p90 and `exploratory`. */
  readonly advisor?: PlanAdvisor;
  /** Adds `explanation` to every row (it asks the demand fit for the elasticities). Prices stay the same. */
  readonly explain?: boolean;
  /**
   * The planned promotions of the plan's days (`pricing data import --promotions`): a promoted day's expected units
   * and band carry the fitted promotion lift; a product and date without one has none.
   */
  readonly promotions?: readonly PlannedPromotion[];
}

/** One product as the plan walks it day by day. */
interface Lane {
  readonly state: ProductState;
  /** The policy's product index, when the policy prices it. */
  readonly policyIndex: number | undefined;
  /** Days from today to the last day the rule paces stock over. */
  readonly lastDay: number;
  stock: number;
  prev: number | null;
  selling: boolean;
  /** The lowest price of the `LOWEST_PRICE_DAYS` days before the day being priced (`LowestWindow`). */
  readonly lowest: LowestWindow;
  /** The lane's choice of the day being priced, rewritten each day: two objects a row were allocated for it. */
  readonly pick: DayPick;
  /** The lane's move for the jump guard on the day being priced (rewritten each day, as `pick`). */
  readonly move: { last: number | null; price: number };
}

/** What a lane's pricers chose on one plan day, before the jump guard. */
interface DayPick {
  /** False where the lane does not sell that day: the rest is stale. */
  live: boolean;
  state: ProductState;
  override: PriceOverride | undefined;
  pin: number | null;
  rule: number;
  online: LearnedPrice | null;
  /** The policy's grid index (-1 where it did not price). */
  pick: number;
  learned: RlPolicy | null;
  chosen: number;
  /** Whether the exploration cap moved the policy's price. */
  capped: boolean;
  /** Whether the jump guard damps the lane's price that day. */
  damped: boolean;
}

/**
 * The prices of a lane's last `LOWEST_PRICE_DAYS` days, the history's then the plan's, as a deque of increasing
 * prices (a sliding-window minimum): each row reads its lowest price at the front, where scanning the window's ~60
 * entries for each of a plan's 9,000 rows cost ~3.5 ms a plan. Entries come in by day (the history's sorted first);
 * a NaN price, which `Math.min` would have spread, is remembered by its day instead.
 */
interface LowestWindow {
  /** The history's entries not yet in the window, sorted by day, from `next`. */
  readonly pending: readonly { readonly day: number; readonly price: number }[];
  next: number;
  readonly days: number[];
  readonly prices: number[];
  /** The deque's front. */
  head: number;
  /** The last day whose price was NaN (-Infinity: none). */
  nanDay: number;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** A planned row while it is filled in. */
type RowDraft = { -readonly [K in keyof PlannedPrice]: PlannedPrice[K] };

/**
 * Prices every product for every date of [startDate, endDate]: with the policy where it covers the product and
 * date, with the rule elsewhere, rolling stock forward from today by expected sales. Today's guardrails and max
 * daily change always bind. The policy prices all its products of one day in one forward pass. Sorted by date,
 * then product id.
 */
export function planPrices(input: PlanInput): PlannedPrice[] {
  const { today, startDate, endDate, active, fit } = input;
  const policy = active.policy !== null && today >= active.policy.startDate ? active.policy : null;
  // Lanes in product-id order, days outermost: the rows come out sorted by date, then product id.
  const sorted = [...input.products].sort((a, b) => (a.product.product_id < b.product.product_id ? -1 : 1));
  const lanes: Lane[] = packedMap(sorted, (state) => ({
    state,
    policyIndex: policy?.findProduct(state.product.product_id),
    lastDay: daysBetween(today, seasonLastDay(state, today)),
    stock: state.stock === null ? Number.POSITIVE_INFINITY : Math.max(0, state.stock),
    prev: state.lastPrice,
    selling: true,
    lowest: lowestWindow(today, state.recentPrices ?? []),
    pick: {
      live: false,
      state,
      override: undefined,
      pin: null,
      rule: 0,
      online: null,
      pick: -1,
      learned: null,
      chosen: 0,
      capped: false,
      damped: false,
    },
    move: { last: null, price: 0 },
  }));
  const planned = new Map(
    (input.promotions ?? []).map((p) => [`${p.product_id}\u0000${p.date}`, p.promoted]),
  );
  const out: PlannedPrice[] = [];
  const days = daysBetween(today, endDate);
  const picks = new Int32Array(lanes.length);
  const policyStart = policy === null ? 0 : daysBetween(policy.startDate, today);
  const moves: { last: number | null; price: number }[] = [];
  const movers: Lane[] = [];
  for (let t = 0; t <= days; t++) {
    const date = addDays(today, t);
    const weekday = weekdayOf(date);
    for (const lane of lanes) lane.selling &&= sellsOn(lane.state, date);
    // Each lane's rule, pin and learned price first: the policy's forward pass then runs only for the lanes the
    // learner leaves (none where it prices every product), and each lane's candidate follows, so the jump guard
    // judges the plan day as a whole.
    for (const lane of lanes) {
      const pick = lane.pick;
      pick.live = lane.selling;
      if (!lane.selling) continue;
      // A partner's override: a pin prices the day as it is; a narrowing prices it inside narrower guardrails.
      const override = overrideOn(lane.state, date);
      const state = narrowedState(lane.state, override);
      const rule = boundPrice(
        state,
        ruleRawPrice(state, ruleDay(weekday, lane.lastDay - t + 1), lane.stock),
        lane.prev,
      );
      const pin = override?.price ?? null;
      pick.state = state;
      pick.override = override;
      pick.pin = pin;
      pick.rule = rule;
      // The learner chooses as without the narrowing, which then bounds its price like any guardrail (binding
      // `override`); inside a narrowed grid it would have no price to say the narrowing moved.
      pick.online =
        pin === null ? (input.learner?.priceOn(lane.state, date, t, lane.stock, rule) ?? null) : null;
    }
    picks.fill(-1);
    if (policy !== null)
      pickWithPolicy(policy, lanes, policyStart + t, picks, (k) => {
        const pick = lanes[k]?.pick;
        return pick?.live === true && pick.pin === null && pick.online === null;
      });
    // The jump guard, day by day against the price before (today: the last price served), so a damped jump stays
    // damped over the run's later days. A pin is the partner's: the guard never moves it, nor counts it.
    moves.length = 0;
    movers.length = 0;
    lanes.forEach((lane, k) => {
      const c = lane.pick;
      c.damped = false;
      if (!c.live) return;
      c.pick = -1;
      c.learned = null;
      c.chosen = c.rule;
      c.capped = false;
      if (c.pin !== null) {
        c.chosen = c.pin;
        return;
      }
      const pick = picks[k] ?? -1;
      c.pick = pick;
      c.learned = policy !== null && lane.policyIndex !== undefined && pick >= 0 ? policy : null;
      if (c.online !== null) c.chosen = c.online.price;
      else if (c.learned !== null && lane.policyIndex !== undefined) {
        const picked = c.learned.priceAt(lane.policyIndex, pick) ?? c.rule;
        c.chosen = input.advisor === undefined ? picked : input.advisor.cap(c.state, picked, c.rule);
        c.capped = c.chosen !== picked;
      }
      if (c.online !== null || c.learned !== null) {
        lane.move.last = lane.prev;
        lane.move.price = c.chosen;
        moves.push(lane.move);
        movers.push(lane);
      }
    });
    if (isJump(moves)) for (const lane of movers) lane.pick.damped = movesFar(lane.move);
    for (const lane of lanes) {
      const candidate = lane.pick;
      if (!lane.selling || !candidate.live) continue;
      const { state, override, pin, rule, pick, learned, online } = candidate;
      const stock = lane.stock;
      const promoted =
        planned.size === 0 ? 0 : (planned.get(`${state.product.product_id}\u0000${date}`) ?? 0);
      // `move` holds the lane's price before and its candidate (`DayPick.chosen`) where the guard damps it.
      const chosen = candidate.damped ? dampedPrice(lane.move) : candidate.chosen;
      const advisor = input.advisor;
      let price = rule;
      let units: number;
      // What the pricer chose, and the exploration cap's price where it moved it: the binding is read from these.
      let wanted: number | null = null;
      let capped = false;
      if (pin !== null) {
        wanted = pin;
        price = pin;
        units = expectedUnitsOn(state, fit, date, price, stock, promoted);
      } else if (online !== null) {
        wanted = chosen;
        capped = candidate.damped;
        price = boundPrice(state, chosen, lane.prev);
        units =
          price === online.price
            ? online.expectedUnits
            : expectedUnitsOn(state, fit, date, price, stock, promoted);
      } else if (learned !== null && lane.policyIndex !== undefined) {
        wanted = chosen;
        capped = candidate.capped || candidate.damped;
        price = boundPrice(state, chosen, lane.prev);
        // The policy's own demand model while its price stands; the fit once today's limits moved it.
        units =
          price === candidate.chosen
            ? learned.expectedUnits(lane.policyIndex, policyStart + t, pick, stock)
            : expectedUnitsOn(state, fit, date, price, stock, promoted);
      } else {
        units = expectedUnitsOn(state, fit, date, price, stock, promoted);
      }
      if (date >= startDate) {
        const expectedUnits = round4(units);
        let source: PlannedPrice["source"];
        let modelId: string | null;
        // The band's fields, where the row carries them (scalars: an object a row was one more allocation).
        let banded = false;
        let p10 = 0;
        let p90 = 0;
        let exploratory = false;
        if (pin !== null) {
          const b = advisor?.band(state, date, price, stock, promoted);
          source = "override";
          modelId = null;
          if (b !== undefined) {
            banded = true;
            p10 = b.p10;
            p90 = b.p90;
          }
        } else if (online !== null) {
          // Without a model the learner starts from the rule's prices: the rows say no model serves.
          source = active.source;
          modelId = active.source === "rule" ? null : (input.learner?.modelId ?? null);
          banded = true;
          p10 = online.unitsP10;
          p90 = online.unitsP90;
          exploratory = online.exploratory;
        } else {
          const b = advisor?.band(state, date, price, stock, promoted);
          source = learned === null ? "rule" : active.source;
          modelId = learned === null ? null : active.modelId;
          if (advisor !== undefined && b !== undefined) {
            banded = true;
            p10 = b.p10;
            p90 = b.p90;
            exploratory = learned !== null && advisor.outside(state, price);
          }
        }
        // In the order the rows have always had (their JSON is served and digested), each shape in one literal
        // where it can be: ~9,000 rows a plan, and a row grown field by field past its literal's fields
        // reallocated their store (spreading a row into each source's variant cost more than pricing it).
        const currency = state.product.currency;
        let row: RowDraft;
        if (override === undefined && !candidate.damped && banded) {
          row = {
            product_id: state.product.product_id,
            date,
            price: roundToMinor(price, currency),
            currency,
            base_price: state.product.base_price,
            rule_price: rule,
            expected_units: expectedUnits,
            expected_revenue: roundToMinor(units * price, currency),
            lowest_price_30d: lowestPrice30d(lane, t),
            source,
            model_id: modelId,
            expected_units_p10: Math.min(p10, expectedUnits),
            expected_units_p90: Math.max(p90, expectedUnits),
            exploratory,
          };
        } else if (override === undefined && !candidate.damped) {
          row = {
            product_id: state.product.product_id,
            date,
            price: roundToMinor(price, currency),
            currency,
            base_price: state.product.base_price,
            rule_price: rule,
            expected_units: expectedUnits,
            expected_revenue: roundToMinor(units * price, currency),
            lowest_price_30d: lowestPrice30d(lane, t),
            source,
            model_id: modelId,
          };
        } else {
          row = {
            product_id: state.product.product_id,
            date,
            price: roundToMinor(price, currency),
            currency,
            base_price: state.product.base_price,
            rule_price: rule,
            expected_units: expectedUnits,
            expected_revenue: roundToMinor(units * price, currency),
            lowest_price_30d: lowestPrice30d(lane, t),
          } as RowDraft;
          if (override !== undefined) row.override_id = override.override_id;
          if (candidate.damped) row.jump_damped = true;
          row.source = source;
          row.model_id = modelId;
          if (banded) {
            row.expected_units_p10 = Math.min(p10, expectedUnits);
            row.expected_units_p90 = Math.max(p90, expectedUnits);
            row.exploratory = exploratory;
          }
        }
        if (input.explain)
          row.explanation = explain(state, fit, {
            weekday,
            rawRule: unboundedRulePrice(state, ruleDay(weekday, lane.lastDay - t + 1), stock),
            wanted,
            capped,
            price,
            prev: lane.prev,
            guardrails: lane.state,
            pinned: pin !== null,
            stock,
            units,
          });
        out.push(row);
      }
      lane.stock = Math.max(0, stock - units);
      lane.prev = price;
      enterWindow(lane.lowest, t, price);
    }
  }
  return out;
}

/** A lane's window of lowest prices at today, holding the history's `recent` prices to come in by their day. */
function lowestWindow(
  today: string,
  recent: readonly { readonly date: string; readonly price: number }[],
): LowestWindow {
  const pending = recent.map((p) => ({ day: daysBetween(today, p.date), price: p.price }));
  // The history's order is by date already; a state built from rows in another order is sorted (stable) here.
  if (pending.some((p, i) => i > 0 && p.day < (pending[i - 1]?.day ?? p.day)))
    pending.sort((a, b) => a.day - b.day);
  return { pending, next: 0, days: [], prices: [], head: 0, nanDay: Number.NEGATIVE_INFINITY };
}

/** Day `day`'s price into the window, after the history's days up to it. */
function enterWindow(window: LowestWindow, day: number, price: number): void {
  admitHistory(window, day + 1);
  pushWindow(window, day, price);
}

/** The history's prices of the days before `before` into the window. */
function admitHistory(window: LowestWindow, before: number): void {
  for (;;) {
    const p = window.pending[window.next];
    if (p === undefined || !(p.day < before)) return;
    window.next++;
    pushWindow(window, p.day, p.price);
  }
}

function pushWindow(window: LowestWindow, day: number, price: number): void {
  if (Number.isNaN(price)) {
    window.nanDay = Math.max(window.nanDay, day);
    return;
  }
  const { days, prices } = window;
  // A later day at a price no higher makes every earlier one at a higher price never the lowest again.
  while (days.length > window.head && (prices[prices.length - 1] as number) >= price) {
    days.pop();
    prices.pop();
  }
  days.push(day);
  prices.push(price);
}

/**
 * The lowest price of the lane's product on the `LOWEST_PRICE_DAYS` days before day `t` of the plan (from today):
 * history, then the plan.
 */
function lowestPrice30d(lane: Lane, t: number): number | null {
  const window = lane.lowest;
  admitHistory(window, t);
  const from = t - LOWEST_PRICE_DAYS;
  while (window.head < window.days.length && (window.days[window.head] as number) < from) window.head++;
  if (window.nanDay >= from) return null;
  const lowest = window.prices[window.head] ?? Number.POSITIVE_INFINITY;
  return Number.isFinite(lowest) ? roundToMinor(lowest, lane.state.product.currency) : null;
}

interface DayPricing {
  readonly weekday: number;
  /** The rule's price before the guardrails and the max daily change. */
  readonly rawRule: number;
  /** The policy's (after the exploration cap) or the learner's price; null where the rule priced. */
  readonly wanted: number | null;
  /** Whether the exploration cap or the jump guard moved the pricer's price. */
  readonly capped: boolean;
  readonly price: number;
  /** The price of the day before (the last price sold at on the plan's first day). */
  readonly prev: number | null;
  /** The product's own guardrails, where an override narrowed the state's for the day. */
  readonly guardrails: Pick<ProductState, "minPrice" | "maxPrice">;
  /** A partner's pin priced the day: nothing moved it (it wins over the max daily change). */
  readonly pinned: boolean;
  readonly stock: number;
  readonly units: number;
}

/** A row's explanation from the day's pricing and the product's state (and its demand fit). */
function explain(state: ProductState, fit: () => FittedDemand | null, day: DayPricing): PriceExplanation {
  const fitted = fit()?.products.get(state.product.product_id);
  const se = fitted?.stdErrors.elasticity;
  const base = state.product.base_price;
  // The guardrails or the max daily change where they moved the price; the cap where it alone did.
  const guardrail = day.pinned ? null : priceBinding(state, day.wanted ?? day.rawRule, day.price, day.prev);
  // A guardrail an override narrowed is the override's doing.
  const bound =
    (guardrail === "min_price" && state.minPrice > day.guardrails.minPrice + 1e-9) ||
    (guardrail === "max_price" && state.maxPrice < day.guardrails.maxPrice - 1e-9)
      ? "override"
      : guardrail;
  return {
    rule_price: roundToMinor(day.rawRule, state.product.currency),
    weekday_index: round4(state.ruleParams.weekdayIndex[day.weekday] ?? 1),
    // Against the row's units as served (4 decimals): a tail too small to show is "nothing expected".
    stock_cover_days:
      Number.isFinite(day.stock) && round4(day.units) > 0
        ? Math.round((day.stock / round4(day.units)) * 100) / 100
        : null,
    elasticity: fitted === undefined ? null : round4(fitted.elasticity),
    elasticity_se: se === undefined || !Number.isFinite(se) ? null : round4(se),
    observed_price_range: state.observedPriceRange ?? [base, base],
    binding: bound ?? (day.capped ? "exploration_limit" : null),
  };
}

/**
 * The policy's grid index for every selling lane it covers on its day `day` and `wanted` asks for (left -1
 * elsewhere, and where it chose not to sell: the rule prices those), in one batched forward pass.
 */
function pickWithPolicy(
  policy: RlPolicy,
  lanes: readonly Lane[],
  day: number,
  picks: Int32Array,
  wanted: (lane: number) => boolean,
): void {
  const rows: number[] = [];
  lanes.forEach((lane, k) => {
    if (!lane.selling || lane.policyIndex === undefined || !wanted(k)) return;
    if (day < 0 || day >= policy.horizonOf(lane.policyIndex)) return;
    rows.push(k);
  });
  if (rows.length === 0) return;
  const batch = {
    product: new Int32Array(rows.length),
    day: new Int32Array(rows.length),
    stock: new Float64Array(rows.length),
    prevPrice: new Float64Array(rows.length),
  };
  rows.forEach((k, r) => {
    const lane = lanes[k];
    if (lane === undefined || lane.policyIndex === undefined) return;
    batch.product[r] = lane.policyIndex;
    batch.day[r] = day;
    batch.stock[r] = lane.stock;
    batch.prevPrice[r] = lane.prev ?? Number.NaN;
  });
  const chosen = policy.priceStates(batch);
  rows.forEach((k, r) => {
    picks[k] = chosen[r] ?? -1;
  });
}
