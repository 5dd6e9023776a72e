import { withinDailyChange } from "../base/daily-change.js";
/**
 * The jump guard against the last run: a plan day that moves many products far from the day before (the plan's
 * first day: from the prices last served) is damped, so a model that goes wrong at once (a bad retrain, a fit on corrupt sales) cannot reprice the whole
 * catalogue overnight. One product's far move is the exploration range's business, not this guard's; the rule is
 * never damped (it is the fallback and the kill switch).
 */

/** A move of more than this share of the last price is far (six steps of the catalogue's 4 % grid). */
export const JUMP_FAR = 0.25;
/** Share of the model-priced products with a last price whose far moves together make a jump. */
export const JUMP_SHARE = 0.3;
/** Fewest far moves that make a jump: one product alone is never "many". */
export const JUMP_MIN_PRODUCTS = 2;

/** One product's move: the price the model chose and the price of the day before (null: none yet). */
export interface PriceMove {
  readonly last: number | null;
  readonly price: number;
}

/** Whether a move leaves [last (1 - JUMP_FAR), last (1 + JUMP_FAR)]. */
export function movesFar(move: PriceMove): boolean {
  if (move.last === null || !(move.last > 0)) return false;
  return !withinDailyChange(move.last, move.price, JUMP_FAR);
}

/**
 * Whether the moves (every model-priced product of one plan day) jump: at least `JUMP_MIN_PRODUCTS` of them
 * and at least `JUMP_SHARE` of those with a last price move far.
 */
export function isJump(moves: readonly PriceMove[]): boolean {
  const judged = moves.filter((m) => m.last !== null && m.last > 0);
  const far = judged.filter(movesFar).length;
  return far >= JUMP_MIN_PRODUCTS && far >= JUMP_SHARE * judged.length;
}

/** A far move damped to the edge of the band around the last price; other moves as they are. */
export function dampedPrice(move: PriceMove): number {
  if (move.last === null || !movesFar(move)) return move.price;
  return Math.min(move.last * (1 + JUMP_FAR), Math.max(move.last * (1 - JUMP_FAR), move.price));
}
