export type { PolicyArtifact, SerializeOptions } from "./artifact/policy-artifact.js";
export {
  checkPolicyArtifact,
  ENGINE_VERSION,
  loadPolicyArtifact,
  serializeArtifact,
} from "./artifact/policy-artifact.js";
export type { PolicyManifest, PolicyMetrics } from "./artifact/policy-manifest.js";
export {
  ARTIFACT_FORMAT_VERSION,
  PolicyManifestSchema,
  SUPPORTED_FORMAT_VERSIONS,
} from "./artifact/policy-manifest.js";
export type { TfBackendInfo, TfBackendName } from "./backend/tf-backend.js";
export { initTfBackend, tensorCount } from "./backend/tf-backend.js";
export type { BacktestInput } from "./backtest/backtest.js";
export { backtest } from "./backtest/backtest.js";
export type {
  BacktestInWorkerOptions,
  BacktestProgress,
  BacktestRequest,
} from "./backtest/backtest-in-worker.js";
export { backtestInWorker } from "./backtest/backtest-in-worker.js";
export type {
  BacktestErrorCode,
  BacktestFigures,
  BacktestProduct,
  BacktestReport,
  BacktestRow,
  Refit,
} from "./backtest/backtest-report.js";
export {
  BacktestError,
  BacktestFiguresSchema,
  BacktestProductSchema,
  BacktestReportSchema,
  BacktestRowSchema,
  RefitSchema,
} from "./backtest/backtest-report.js";
export { addDays, daysBetween, weekdayOf } from "./base/calendar.js";
export { currencyDigits, isKnownCurrency, minorUnit, roundToMinor } from "./base/currency.js";
export { CHANGE_TOLERANCE, withinDailyChange } from "./base/daily-change.js";
export {
  type ArtifactErrorCode,
  EngineError,
  type EngineErrorCode,
  type PlanPoolErrorCode,
  type TrainingErrorCode,
} from "./base/engine-error.js";
export type { PriceFormat } from "./base/price-format.js";
export {
  isPrintable,
  nearestPrintable,
  PRICE_ENDING,
  parsePriceEndings,
  priceFormat,
  printableAtOrAbove,
  printableAtOrBelow,
} from "./base/price-format.js";
export type { CatalogPrices } from "./base/price-grid.js";
export {
  CATALOG_GRID_STEP,
  catalogGrid,
  expandGrid,
  NoPrintablePriceError,
  printableRange,
} from "./base/price-grid.js";
export type {
  CompanyFitReport,
  ElasticitySource,
  FitOptions,
  FitReport,
  FittedDemand,
  FittedLevel,
  FittedProduct,
  ProductHint,
} from "./demand/fit-demand.js";
export {
  calendarLift,
  fitDemand,
  fittedLaw,
  fittedRate,
  fittedRateOn,
  levelOn,
} from "./demand/fit-demand.js";
export { problemFromFit } from "./demand/problem-from-fit.js";
export type {
  CurvePoint,
  DemandCurve,
  DemandCurveInput,
  ObservedPoint,
} from "./learn/demand-curve.js";
export { demandCurves } from "./learn/demand-curve.js";
export { demandCurvesInWorker } from "./learn/demand-curve-in-worker.js";
export type { Exploration } from "./learn/exploration-range.js";
export { explorationRange, SEEN_DAYS } from "./learn/exploration-range.js";
export type { LearningPlanInput } from "./learn/learning-plan.js";
export { capToExploration, planWithLearning } from "./learn/learning-plan.js";
export type { OnlineLearner, OnlineLearnerInput } from "./learn/online-learner.js";
export { onlineLearner, unitsInterval } from "./learn/online-learner.js";
export { builtinScenarios } from "./market/builtin-scenarios.js";
export type { Market, MarketProduct } from "./market/generate-market.js";
export { generateMarket } from "./market/generate-market.js";
export { problemFromTruth } from "./market/problem-from-truth.js";
export { sampleDemand } from "./market/sampling.js";
export type {
  CompanySpec,
  DemandSpec,
  HistorySpec,
  PriceGrid,
  ProductSpec,
  Scenario,
  ScenarioInput,
} from "./market/scenario-schema.js";
export {
  CompanySpecSchema,
  DemandSpecSchema,
  HistorySpecSchema,
  PriceGridSchema,
  ProductSpecSchema,
  ScenarioSchema,
} from "./market/scenario-schema.js";
export type { TrueDemand } from "./market/true-demand.js";
export { trueRate } from "./market/true-demand.js";
export type { BestConstantResult } from "./optimum/best-constant.js";
export { bestConstantPolicy, constantPricePolicy } from "./optimum/best-constant.js";
export type { EvaluateOptions, PolicyEvaluation } from "./optimum/evaluate-policy.js";
export { evaluatePolicy } from "./optimum/evaluate-policy.js";
export type { LpBound } from "./optimum/lp-bound.js";
export { lpBound } from "./optimum/lp-bound.js";
export type { OptimumResult } from "./optimum/solve-optimum.js";
export { solveOptimum } from "./optimum/solve-optimum.js";
export type {
  ActivePolicy,
  LearnedPrice,
  OnlinePricer,
  PlanAdvisor,
  PlanInput,
  PlannedPrice,
  PlannedPromotion,
  PlanSource,
  PriceExplanation,
} from "./plan/company-plan.js";
export { planPrices } from "./plan/company-plan.js";
export type { PriceBinding } from "./plan/day-price.js";
export {
  dampedPrice,
  isJump,
  JUMP_FAR,
  JUMP_MIN_PRODUCTS,
  JUMP_SHARE,
  movesFar,
  type PriceMove,
} from "./plan/jump-guard.js";
export type { PlanPolicyInput } from "./plan/plan-policy.js";
export { planPolicy } from "./plan/plan-policy.js";
export type {
  CatalogProduct,
  PriceOverride,
  ProductState,
  ProductStateOptions,
} from "./plan/product-state.js";
export { productGuardrails, productState, sellsOn } from "./plan/product-state.js";
export type { PackedPlan } from "./plan-worker/packed-plan.js";
export {
  FLAG_BAND,
  FLAG_EXPLANATION,
  FLAG_EXPLORATORY,
  FLAG_JUMP_DAMPED,
  FLAG_OVERRIDE,
  NUMBER_COLUMNS,
  packPlan,
  TEXT_COLUMNS,
  unpackPlan,
} from "./plan-worker/packed-plan.js";
export type {
  ActiveArtifact,
  FitSource,
  LearningJob,
  PlanArtifact,
  PlanJob,
} from "./plan-worker/plan-job.js";
export { planInputOf, runPlanJob } from "./plan-worker/plan-job.js";
export type { PlanPool, PlanPoolOptions, PlanRequest, PlanThreadStats } from "./plan-worker/plan-pool.js";
export { createPlanPool } from "./plan-worker/plan-pool.js";
export type { ActionSpec } from "./policy/action-space.js";
export type {
  CompanyTrainingData,
  CompanyTrainingProduct,
} from "./policy/company-training.js";
export { trainingInputFromHistory } from "./policy/company-training.js";
export type { TrainingProgress, TrainOptions } from "./policy/fitted-q.js";
export { trainPolicy } from "./policy/fitted-q.js";
export type { PolicyActivity } from "./policy/policy-activity.js";
export { policyActivity } from "./policy/policy-activity.js";
export { marginsUnderModel, policyProblems } from "./policy/policy-metrics.js";
export type { RlPolicyData, StateBatch, TrainingSummary } from "./policy/rl-policy.js";
export { RlPolicy } from "./policy/rl-policy.js";
export type {
  PlausibleModel,
  ProductSafety,
  SafeImprovement,
  SafetyDecision,
  SafetyReport,
} from "./policy/safe-improvement.js";
export {
  demandUncertaintyOf,
  passesSafetyGate,
  plausibleModels,
  SAFETY_Z,
  safePolicyImprovement,
} from "./policy/safe-improvement.js";
export type {
  DemandUncertainty,
  ProductSetup,
  ProductTrainingData,
  TrainingConfig,
  TrainingConfigInput,
  TrainingInput,
  TrainingInputInput,
} from "./policy/training-input.js";
export {
  DemandUncertaintySchema,
  ProductTrainingDataSchema,
  RuleParamsSchema,
  TrainingConfigSchema,
  TrainingInputSchema,
  trainingDataFromProblems,
} from "./policy/training-input.js";
export type { IndexRange } from "./problem/action-range.js";
export { allowedRange, isAllowed, nearestAllowedIndex } from "./problem/action-range.js";
export type { PricingProblem, ProductPolicy } from "./problem/pricing-problem.js";
export { SHUTOFF } from "./problem/pricing-problem.js";
export type { ProblemSetup } from "./problem/problem-setup.js";
export { buildProblem } from "./problem/problem-setup.js";
export type { DemandDistribution, DemandFamily, DemandPmf } from "./problem/sales-distribution.js";
export {
  BERNOULLI,
  demandPmf,
  demandVariance,
  expectedCapped,
  expectedDemand,
  negativeBinomial,
  overdispersionOf,
  POISSON,
} from "./problem/sales-distribution.js";
export { sampleGamma, sampleNormal, samplePoisson, type Uniform } from "./random/random-draws.js";
export { rulePolicy } from "./rule/rule-policy.js";
export type { Guardrails, RuleParams, RuleState } from "./rule/rule-price.js";
export { ruleParamsFromHistory, rulePrice } from "./rule/rule-price.js";
export { observedPriceRange } from "./sales/observed-range.js";
export { isStockOutDay, type SalesRow } from "./sales/sales-row.js";
export { trainArtifact } from "./training/train-artifact.js";
export type { TrainInWorkerOptions } from "./training/train-in-worker.js";
export { trainInWorker } from "./training/train-in-worker.js";
