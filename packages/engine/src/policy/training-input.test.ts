import { describe, expect, it } from "vitest";
import { twoProductInput } from "./test-support/two-product-fit.js";
import { TrainingInputSchema } from "./training-input.js";

describe("a training input's network size", () => {
  const { input } = twoProductInput();
  const [product] = input.products;
  const company = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      ...product!,
      setup: { ...product!.setup, productId: `sku-${i}` },
    }));

  it("defaults to two layers of 64 for a small company and of 32 from 20 products on", () => {
    const parse = (count: number, config?: object) =>
      TrainingInputSchema.parse({ companyId: "c", products: company(count), ...(config ? { config } : {}) })
        .config.hidden;
    expect(parse(1)).toEqual([64, 64]);
    expect(parse(19, { seed: 3 })).toEqual([64, 64]);
    expect(parse(20)).toEqual([32, 32]);
    expect(parse(100, { seed: 3 })).toEqual([32, 32]);
  });

  it("keeps the layers a config sets, and the parsed input parses to itself", () => {
    const given = TrainingInputSchema.parse({
      companyId: "c",
      products: company(30),
      config: { hidden: [16] },
    });
    expect(given.config.hidden).toEqual([16]);
    const parsed = TrainingInputSchema.parse({ companyId: "c", products: company(30) });
    expect(TrainingInputSchema.parse(parsed)).toEqual(parsed);
  });
});
