import { type ActionSpec, buildActionSpec, referencePriceOf } from "./action-space.js";
import { ProductModel } from "./product-model.js";
import type { ProductSetup, TrainingInput } from "./training-input.js";

/** The simulator the policy learns in: each product's model under one action space. */
export interface Simulator {
  readonly products: { setup: ProductSetup; referencePrice: number; rates: Float32Array }[];
  readonly spec: ActionSpec;
  readonly models: readonly ProductModel[];
}

/** The simulator of a (parsed) training input; the same input builds the same models in any thread. */
export function buildSimulator(input: Pick<TrainingInput, "products">): Simulator {
  const products = input.products.map((p) => ({
    setup: p.setup,
    referencePrice: referencePriceOf(p.setup, p.referencePrice),
    rates: Float32Array.from(p.rates),
  }));
  const spec = buildActionSpec(products);
  const models = products.map((p) => new ProductModel(spec, p.setup, p.rates, p.referencePrice));
  return { products, spec, models };
}
