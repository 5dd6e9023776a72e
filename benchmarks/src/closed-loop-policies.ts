import {
  type ActivePolicy,
  EngineError,
  type Exploration,
  loadPolicyArtifact,
  type Market,
  type PlannedPrice,
  planPrices,
  type RlPolicy,
  runPlanJob,
  type SalesRow,
  trainArtifact,
  trainingInputFromHistory,
} from "@pricing/engine";
import seedrandom from "seedrandom";
import type { SeasonDay, SeasonPricer, ServedPrice } from "./closed-loop-sim.js";
import { marketStates } from "./market-states.js";
import { observe, tsUpdateChoice, tsUpdateState } from "./ts-update.js";

export interface ClosedLoopPolicy {
  readonly name: string;
  /** Work done once per scenario, shared by its seeds (the network's training; `releaseTrained` frees it). */
  prepare?(market: Market, history: readonly SalesRow[], quick: boolean): Promise<void>;
  season(market: Market, seed: number): SeasonPricer;
}

const RULE: ActivePolicy = { source: "rule", modelId: null, policy: null };

/** Today's price of each product: the first day of the plan `planPrices` makes today, without learning. */
function servedToday(day: SeasonDay, active: ActivePolicy): Map<string, ServedPrice> {
  return servedRows(
    planPrices({
      today: day.today,
      startDate: day.today,
      endDate: day.today,
      products: day.states,
      active,
      fit: () => null,
    }),
  );
}

/** Each product's served price, with the p10/p90 the API serves with it. */
function servedRows(rows: readonly PlannedPrice[]): Map<string, ServedPrice> {
  return new Map(
    rows.map((r) => [
      r.product_id,
      {
        price: r.price,
        ...(r.expected_units_p10 === undefined ? {} : { p10: r.expected_units_p10 }),
        ...(r.expected_units_p90 === undefined ? {} : { p90: r.expected_units_p90 }),
      },
    ]),
  );
}

export const rulePolicy: ClosedLoopPolicy = {
  name: "rule",
  season: () => ({ priceDay: (day) => servedToday(day, RULE) }),
};

const trained = new Map<string, Promise<RlPolicy | null>>();

/** The network of `trainOnInitialHistory`, trained once per scenario for every policy that serves it. */
function trainedOnce(market: Market, history: readonly SalesRow[], quick: boolean): Promise<RlPolicy | null> {
  const key = market.scenario.name;
  let policy = trained.get(key);
  if (policy === undefined) {
    policy = trainOnInitialHistory(market, history, quick);
    trained.set(key, policy);
  }
  return policy;
}

/** Frees the scenario's network once every policy has played it. */
export async function releaseTrained(market: Market): Promise<void> {
  const policy = await trained.get(market.scenario.name);
  trained.delete(market.scenario.name);
  policy?.dispose();
}

/** The network the server would train on the initial history (its minimum history, 28 days), null when too thin. */
async function trainOnInitialHistory(
  market: Market,
  history: readonly SalesRow[],
  quick: boolean,
): Promise<RlPolicy | null> {
  const states = marketStates({ ...market, history: [...history] });
  try {
    const input = trainingInputFromHistory({
      companyId: market.scenario.name,
      products: market.products.map((p) => {
        const state = states.get(p.productId);
        if (state === undefined) throw new Error(`no state for ${p.productId}`);
        return { setup: state.setup, basePrice: p.referencePrice };
      }),
      history,
      minHistoryDays: 28,
      config: quick
        ? { seed: market.scenario.seed, stepsPerDay: 12, finalSteps: 300 }
        : { seed: market.scenario.seed },
    });
    return await loadPolicyArtifact(await trainArtifact(input));
  } catch (error) {
    // Thin history: the server refuses to train and serves the rule.
    if (!(error instanceof EngineError)) throw error;
    return null;
  }
}

/** The network trained once on the initial history as the server trains it, never updated; the rule without one. */
export function offlinePolicy(): ClosedLoopPolicy {
  let active: ActivePolicy = RULE;
  return {
    name: "offline",
    async prepare(market, history, quick) {
      const policy = await trainedOnce(market, history, quick);
      active = policy === null ? RULE : { source: "latest", modelId: "offline", policy };
    },
    season: () => ({ priceDay: (day) => servedToday(day, active) }),
  };
}

/**
 * The production default, priced exactly as the server prices a compute or nightly run (`planCompany`): the
 * engine's `runPlanJob` with the company's learning (`exploration` cautious by default, the company id as the seed,
 * `online` true), the whole history so far, and the network the operator trained on the initial history serving
 * when it passes the minimum history (the rule otherwise; the learner runs either way).
 *
 * The nightly refresh (`refreshModel`) retrains that network on every night that brought sales; it is not replayed
 * here (a training a day per seed would take hours), and need not be: the learner prices every product with a
 * demand fit, i.e. every product with a sale, so the network prices none of them, and a product without sales
 * has nothing to retrain on. The learner itself refits from the whole history inside every plan: the production
 * schedule is daily, which this plays.
 */
export function closedLoopPolicy(
  name = "closed_loop",
  exploration: Exploration = "cautious",
  priceList = true,
): ClosedLoopPolicy {
  let active: ActivePolicy = RULE;
  return {
    name,
    async prepare(market, history, quick) {
      const policy = await trainedOnce(market, history, quick);
      active = policy === null ? RULE : { source: "latest", modelId: name, policy };
    },
    season(market, seed) {
      const companyId = `${market.scenario.name}:${seed}`;
      const priceLists = Object.fromEntries(market.products.map((p) => [p.productId, p.setup.prices]));
      return {
        priceDay(day) {
          const products = day.states.map((s) => ({
            productId: s.product.product_id,
            referencePrice: s.product.base_price,
          }));
          const rows = runPlanJob(
            {
              today: day.today,
              startDate: day.today,
              // The server plans `runDays` days; today's rows do not depend on the later days, and are all served.
              endDate: day.today,
              products: day.states,
              active: { source: active.source, modelId: active.modelId },
              fit: day.history.length === 0 ? null : { history: day.history, products },
              learning: {
                history: day.history,
                exploration,
                seed: companyId,
                online: true,
                ...(priceList ? { priceLists } : {}),
              },
            },
            active.policy,
          );
          return servedRows(rows);
        },
      };
    },
  };
}

/** Ferreira, Simchi-Levi & Wang's TS-update on each product's market grid, fed by the history on that grid. */
export const tsUpdatePolicy: ClosedLoopPolicy = {
  name: "ts_update",
  season(market, seed) {
    const rng = seedrandom(`${market.scenario.name}:${seed}:ts_update`);
    const lanes = market.products.map((p) => ({
      product: p,
      // Its Gamma posterior per price knows no over-dispersion: a negative binomial market is Poisson to it.
      state: tsUpdateState(p.setup.prices, p.setup.distribution === "bernoulli" ? "bernoulli" : "poisson"),
    }));
    let seen = 0;
    return {
      priceDay(day) {
        for (; seen < day.history.length; seen++) {
          const row = day.history[seen];
          const lane = lanes.find((l) => l.product.productId === row?.product_id);
          if (row === undefined || lane === undefined) continue;
          observe(lane.state, nearestIndex(lane.product.setup.prices, row.price), row.units_sold);
        }
        return new Map(
          lanes.map((lane, k) => {
            const stock = day.states[k]?.stock ?? null;
            const index = tsUpdateChoice(
              lane.state,
              rng,
              lane.product.unitCost,
              stock ?? Number.POSITIVE_INFINITY,
              market.scenario.horizon - day.day,
              market.scenario.shutoff,
            );
            return [lane.product.productId, { price: index < 0 ? null : (lane.state.prices[index] ?? null) }];
          }),
        );
      },
    };
  },
};

function nearestIndex(prices: readonly number[], price: number): number {
  let best = 0;
  prices.forEach((p, i) => {
    if (Math.abs(p - price) < Math.abs((prices[best] ?? 0) - price)) best = i;
  });
  return best;
}
