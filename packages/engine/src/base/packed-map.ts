/**
 * `items.map(fn)`, filled by `push`. What `Array.prototype.map` returns is a holey array from the builtin and a packed
 * one from optimised code that inlined it, so the kind of array a caller hands on changes with the caller's tier;
 * the optimised code reading it then meets the other kind, deoptimises ("wrong map" under `--trace-deopt`) and is
 * compiled again, plan after plan. A pushed array is the same kind in every tier. Where the arrays of a plan's fit
 * are made this way, bench:inference's plans stopped recompiling the fit each time (benchmarks/README.md).
 */
export function packedMap<T, U>(items: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) out.push(fn(items[i] as T, i));
  return out;
}

/** `items.filter(keep)`, filled by `push` (`packedMap`: a filtered array's kind also changed with the tier). */
export function packedFilter<T>(items: readonly T[], keep: (item: T, index: number) => boolean): T[] {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) if (keep(items[i] as T, i)) out.push(items[i] as T);
  return out;
}
