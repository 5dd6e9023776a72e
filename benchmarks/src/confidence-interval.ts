/** Two-sided 97.5 % Student t quantiles for 1 ... 30 degrees of freedom; the normal 1.96 beyond. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The mean of `values` and the half-width of its 95 % confidence interval (t; 0 for a single value). */
export function meanWithCi95(values: readonly number[]): { mean: number; half: number } {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, half: Number.NaN };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, half: 0 };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  const t = T975[n - 2] ?? 1.96;
  return { mean, half: (t * Math.sqrt(variance)) / Math.sqrt(n) };
}
