import {
  type ActivePolicy,
  type Exploration,
  loadPolicyArtifact,
  type Market,
  type OnlineLearner,
  onlineLearner,
  type PlannedPrice,
  planPrices,
  type RlPolicy,
  type SalesRow,
  TrainingError,
  trainArtifact,
  trainingInputFromHistory,
} from "@pricing/engine";
import seedrandom from "seedrandom";
import type { SeasonDay, SeasonPricer, ServedPrice } from "./closed-loop-sim.js";
import { marketStates } from "./market-states.js";
import { observe, tsUpdateChoice, tsUpdateState } from "./ts-update.js";

export interface ClosedLoopPolicy {
  readonly name: string;
  /** Work done once per scenario, shared by its seeds (the offline network's training). */
  prepare?(market: Market, history: readonly SalesRow[], quick: boolean): Promise<void>;
  season(market: Market, seed: number): SeasonPricer;
  dispose?(): void;
}

/** How often the closed loop refits on the sales so far: every day, or on Mondays (and the first day). */
export type UpdateSchedule = "daily" | "weekly";

const RULE: ActivePolicy = { source: "rule", modelId: null, policy: null };

/** Today's price of each product: the first day of the plan `planPrices` makes today, as the server serves it. */
function servedToday(
  day: SeasonDay,
  active: ActivePolicy,
  learner?: OnlineLearner,
): Map<string, ServedPrice> {
  const rows: PlannedPrice[] = planPrices({
    today: day.today,
    startDate: day.today,
    endDate: day.today,
    products: day.states,
    active,
    fit: () => learner?.fit ?? null,
    ...(learner === undefined ? {} : { learner }),
  });
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

/** The network trained once on the initial history as the server trains it, never updated; the rule without one. */
export function offlinePolicy(): ClosedLoopPolicy {
  let active: ActivePolicy = RULE;
  let policy: RlPolicy | null = null;
  return {
    name: "offline",
    async prepare(market, history, quick) {
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
        policy = await loadPolicyArtifact(await trainArtifact(input));
        active = { source: "latest", modelId: "offline", policy };
      } catch (error) {
        // Thin history: the server refuses to train and serves the rule.
        if (!(error instanceof TrainingError)) throw error;
        active = RULE;
      }
    },
    season: () => ({ priceDay: (day) => servedToday(day, active) }),
    dispose() {
      policy?.dispose();
      policy = null;
    },
  };
}

/** The engine's online learner, refitted on `schedule` from everything sold so far. */
export function closedLoopPolicy(
  name = "closed_loop",
  schedule: UpdateSchedule = "daily",
  exploration: Exploration = "cautious",
): ClosedLoopPolicy {
  return {
    name,
    season(market, seed) {
      let learner: OnlineLearner | undefined;
      const grids = new Map(market.products.map((p) => [p.productId, p.setup.prices]));
      return {
        priceDay(day) {
          if (learner === undefined || schedule === "daily" || (day.day > 0 && day.day % 7 === 0)) {
            learner = onlineLearner({
              history: day.history,
              products: market.products.map((p) => ({
                productId: p.productId,
                referencePrice: p.referencePrice,
              })),
              exploration,
              seed: `${market.scenario.name}:${seed}`,
              distribution: market.scenario.distribution,
              grids,
              modelId: name,
            });
          }
          return servedToday(day, RULE, learner);
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
      state: tsUpdateState(p.setup.prices, market.scenario.distribution),
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
