import { at } from "../base/checked-index.js";
import { nearestPriceIndex } from "../base/nearest-price.js";
import type { ProductSetup } from "./training-input.js";

/** Two price ratios closer than this (relative) are one shared action. */
const MERGE_TOLERANCE = 0.004;
/** Above this many distinct ratios the shared grid is log-spaced instead. */
const MAX_PRICE_ACTIONS = 64;

/**
 * The action head shared by a company's products: price multipliers relative to each product's reference price,
 * plus a trailing no-sale action when any product allows shutoff.
 */
export interface ActionSpec {
  readonly multipliers: readonly number[];
  readonly shutoff: boolean;
}

export function actionCount(spec: ActionSpec): number {
  return spec.multipliers.length + (spec.shutoff ? 1 : 0);
}

export function referencePriceOf(setup: ProductSetup, given: number | undefined): number {
  return given ?? Math.sqrt(setup.minPrice * setup.maxPrice);
}

/** Builds the shared multiplier grid from every product's own grid (merged within 0.4 %). */
export function buildActionSpec(
  products: readonly { setup: ProductSetup; referencePrice: number }[],
): ActionSpec {
  const ratios = products
    .flatMap((p) => p.setup.prices.map((x) => x / p.referencePrice))
    .sort((a, b) => a - b);
  const merged: number[] = [];
  let clusterStart = Number.NaN;
  let sum = 0;
  let count = 0;
  for (const r of ratios) {
    if (count > 0 && r > clusterStart * (1 + MERGE_TOLERANCE)) {
      merged.push(sum / count);
      count = 0;
      sum = 0;
    }
    if (count === 0) clusterStart = r;
    sum += r;
    count++;
  }
  if (count > 0) merged.push(sum / count);
  let multipliers = merged;
  if (merged.length > MAX_PRICE_ACTIONS) {
    const lo = Math.log(at(merged, 0));
    const hi = Math.log(at(merged, merged.length - 1));
    multipliers = Array.from({ length: MAX_PRICE_ACTIONS }, (_, k) =>
      Math.exp(lo + ((hi - lo) * k) / (MAX_PRICE_ACTIONS - 1)),
    );
  }
  return { multipliers, shutoff: products.some((p) => p.setup.shutoff) };
}

/**
 * How one product reads the shared head: the grid index each action charges (-1 = no sale), which actions it may
 * use at all, and which may follow which under its max daily change.
 */
export interface ProductActions {
  /** Grid index per action; -1 for the shutoff action. */
  readonly priceIndex: Int32Array;
  /** 1 when the product may take the action. */
  readonly valid: Uint8Array;
}

export function productActions(
  spec: ActionSpec,
  setup: ProductSetup,
  referencePrice: number,
): ProductActions {
  const a = actionCount(spec);
  const priceIndex = new Int32Array(a);
  const valid = new Uint8Array(a);
  const prices = setup.prices;
  spec.multipliers.forEach((m, k) => {
    const target = m * referencePrice;
    const best = nearestPriceIndex(prices, target);
    priceIndex[k] = best;
    // Actions past the product's own grid would only repeat its end prices.
    const ratio = at(prices, best) / target;
    valid[k] = ratio > 1 / 1.08 && ratio < 1.08 ? 1 : 0;
  });
  // Every grid price must stay reachable, so a product's nearest action to each of its prices is always valid.
  // The logs are taken once, not per (price, action) pair: every policy build runs this per product.
  const logTargets = spec.multipliers.map((m) => Math.log(m * referencePrice));
  for (let i = 0; i < prices.length; i++) {
    const logPrice = Math.log(at(prices, i));
    let best = 0;
    for (let k = 1; k < logTargets.length; k++) {
      const d = Math.abs(at(logTargets, k) - logPrice);
      if (d < Math.abs(at(logTargets, best) - logPrice)) best = k;
    }
    valid[best] = 1;
  }
  if (spec.shutoff) {
    priceIndex[a - 1] = -1;
    valid[a - 1] = setup.shutoff ? 1 : 0;
  }
  return { priceIndex, valid };
}
