export type { PricingProblem, ProductPolicy } from "./problem/pricing-problem.js";
export { SHUTOFF } from "./problem/pricing-problem.js";
