import {
  demandUncertaintyOf,
  type FittedDemand,
  type FittedProduct,
  problemFromFit,
  type TrainingInputInput,
  trainingDataFromProblems,
} from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import type { PricingSettings } from "../config.js";
import { type CompanySnapshot, fitSnapshot } from "./company-snapshot.js";

/** The fitted demand parameters kept in the artifact's manifest (plain JSON, per product). */
function demandModelJson(fit: FittedDemand): Record<string, unknown> {
  const products: Record<string, unknown> = {};
  for (const [id, p] of fit.products as ReadonlyMap<string, FittedProduct>) {
    products[id] = {
      referencePrice: p.referencePrice,
      baseRate: p.baseRate,
      weekdayFactors: p.weekdayFactors,
      elasticity: p.elasticity,
      elasticitySource: p.report.elasticitySource,
      usedRows: p.report.usedRows,
    };
  }
  return {
    family: "constant_elasticity_poisson",
    meanElasticity: fit.company.meanElasticity,
    elasticitySpread: fit.company.elasticitySpread,
    products,
  };
}

/**
 * Builds the training input of a company from its snapshot: the demand model fitted to history, each product's
 * selling problem under it, the rule's parameters for the metrics. Throws 422 `insufficient_history` when the
 * history cannot support a model: fewer distinct days than the minimum, or no product with usable rows.
 */
export function buildTrainingInput(snapshot: CompanySnapshot, settings: PricingSettings): TrainingInputInput {
  const need = settings.minHistoryDays;
  if (snapshot.products.length === 0) {
    throw new ApiError("insufficient_history", "The company has no products to price.");
  }
  if (snapshot.historyDays < need) {
    throw new ApiError(
      "insufficient_history",
      `The company has ${snapshot.historyDays} days of sales history; training needs at least ${need}.`,
    );
  }
  const { fit } = fitSnapshot(snapshot);
  const fitted = snapshot.products.filter((p) => fit.products.has(p.product.product_id));
  if (fitted.length === 0) {
    throw new ApiError("insufficient_history", "No product has usable sales history to fit a demand model.");
  }
  const problems = fitted.map((p) => problemFromFit(fit, p.setup));
  const refs = Object.fromEntries(fitted.map((p) => [p.product.product_id, p.product.base_price]));
  const products = trainingDataFromProblems(problems, refs).map((data, i) => {
    const rule = fitted[i]!.ruleParams;
    const fittedProduct = fit.products.get(data.setup.productId);
    return {
      ...data,
      // The safety check keeps the learned policy only where it beats the rule across the fit's uncertainty.
      ...(fittedProduct ? { demandUncertainty: demandUncertaintyOf(fittedProduct) } : {}),
      ruleParams: {
        basePrice: rule.basePrice,
        weekdayIndex: [...rule.weekdayIndex],
        dailyUnits: rule.dailyUnits,
      },
    };
  });
  return {
    companyId: snapshot.company.company_id,
    products,
    demandModel: demandModelJson(fit) as TrainingInputInput["demandModel"],
    config: { seed: settings.trainSeed, maxSeconds: settings.trainSeconds },
  };
}
