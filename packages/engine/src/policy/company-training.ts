import { EngineError } from "../base/engine-error.js";
import { type FittedDemand, fitDemand } from "../demand/fit-demand.js";
import { problemFromFit } from "../demand/problem-from-fit.js";
import type { ProblemSetup } from "../problem/problem-setup.js";
import { ruleParamsFromHistory } from "../rule/rule-price.js";
import type { SalesRow } from "../sales/sales-row.js";
import { demandUncertaintyOf } from "./safe-improvement.js";
import {
  type TrainingConfigInput,
  type TrainingInputInput,
  trainingDataFromProblems,
} from "./training-input.js";

/** One product as the caller's catalogue knows it: its selling problem from the start date on, without demand. */
export interface CompanyTrainingProduct {
  readonly setup: ProblemSetup;
  /** Catalogue base price (currency units): the demand fit's reference price and the rule's base price. */
  readonly basePrice: number;
}

/**
 * What a company's training starts from: plain, structured-cloneable rows as a server loads them. The demand fit,
 * the simulator, training and serialization all derive from it (inside the worker thread, see `trainInWorker`).
 */
export interface CompanyTrainingData {
  readonly companyId: string;
  readonly products: readonly CompanyTrainingProduct[];
  /** Sales history strictly before the products' start date. */
  readonly history: readonly SalesRow[];
  /** Fewer distinct history dates than this fails with `insufficient_history`. */
  readonly minHistoryDays: number;
  readonly config?: TrainingConfigInput;
}

/**
 * The cheap checks, done before any thread starts so the common refusal costs nothing: the company has products
 * and at least `minHistoryDays` distinct dates of history.
 */
export function checkTrainingHistory(data: CompanyTrainingData): void {
  if (data.products.length === 0) {
    throw new EngineError("insufficient_history", "The company has no products to price.");
  }
  const days = new Set(data.history.map((r) => r.date)).size;
  if (days < data.minHistoryDays) {
    throw new EngineError(
      "insufficient_history",
      `The company has ${days} days of sales history; training needs at least ${data.minHistoryDays}.`,
    );
  }
}

/** The fitted demand parameters kept in the artifact's manifest (plain JSON, per product). */
function demandModelJson(fit: FittedDemand): NonNullable<TrainingInputInput["demandModel"]> {
  const products: Record<string, NonNullable<TrainingInputInput["demandModel"]>> = {};
  for (const [id, p] of fit.products) {
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
 * The training input of a company: the demand model fitted to its history, each fitted product's selling problem
 * under it with the fit's uncertainty (for the safety check) and the rule's parameters (for the metrics). Products
 * without usable history are left out; none left fails with `insufficient_history`.
 */
export function trainingInputFromHistory(data: CompanyTrainingData): TrainingInputInput {
  checkTrainingHistory(data);
  const fit = fitDemand(
    data.history,
    data.products.map((p) => ({ productId: p.setup.productId, referencePrice: p.basePrice })),
  );
  const products = [];
  for (const product of data.products) {
    const fitted = fit.products.get(product.setup.productId);
    if (!fitted) continue;
    const [tabulated] = trainingDataFromProblems([problemFromFit(fit, product.setup)], {
      [product.setup.productId]: product.basePrice,
    });
    if (!tabulated) continue;
    const rule = ruleParamsFromHistory(data.history, product.setup.productId, product.basePrice);
    products.push({
      ...tabulated,
      // The safety check keeps the learned policy only where it beats the rule across the fit's uncertainty.
      demandUncertainty: demandUncertaintyOf(fitted),
      ruleParams: {
        basePrice: rule.basePrice,
        weekdayIndex: [...rule.weekdayIndex],
        dailyUnits: rule.dailyUnits,
      },
    });
  }
  if (products.length === 0) {
    throw new EngineError(
      "insufficient_history",
      "No product has usable sales history to fit a demand model.",
    );
  }
  return {
    companyId: data.companyId,
    products,
    demandModel: demandModelJson(fit),
    ...(data.config === undefined ? {} : { config: data.config }),
  };
}
