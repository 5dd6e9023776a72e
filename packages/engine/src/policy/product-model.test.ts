import { describe, expect, it } from "vitest";
import { ProductModel } from "./product-model.js";
import { buildSimulator } from "./simulator.js";
import { twoProductInput } from "./test-support/two-product-fit.js";

describe("a product model's day features", () => {
  const { spec, products } = buildSimulator(twoProductInput().input);

  it("are the same written into a caller's buffer as into their own", () => {
    for (const p of products) {
      const own = new ProductModel(spec, p.setup, p.rates, p.referencePrice);
      const buffer = new Float32Array(own.dayFeatures.length + 8).fill(7);
      const view = buffer.subarray(4, 4 + own.dayFeatures.length).fill(0);
      const shared = new ProductModel(spec, p.setup, p.rates, p.referencePrice, view);
      expect(shared.dayFeatures).toBe(view);
      expect(Array.from(view)).toEqual(Array.from(own.dayFeatures));
      // Nothing is written outside the view.
      expect(Array.from(buffer.subarray(0, 4))).toEqual([7, 7, 7, 7]);
      expect(Array.from(buffer.subarray(4 + own.dayFeatures.length))).toEqual([7, 7, 7, 7]);
    }
  });

  it("refuses a buffer of the wrong size", () => {
    const p = products[0]!;
    expect(() => new ProductModel(spec, p.setup, p.rates, p.referencePrice, new Float32Array(3))).toThrow(
      RangeError,
    );
  });
});
