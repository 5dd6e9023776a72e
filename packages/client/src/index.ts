export { DEFAULT_TIMEOUTS_MS, type OperationName } from "./deadline.js";
export { ApiError, type ApiErrorCode, isApiError, NetworkError, TimeoutError } from "./errors.js";
export type { components, paths } from "./openapi.gen.js";
export {
  type CallOptions,
  type FetchLike,
  type PostOptions,
  PricingClient,
  type PricingClientOptions,
  type RateLimitRetryOptions,
  type WaitForOperationOptions,
} from "./pricing-client.js";
export type {
  ComputeRequest,
  ComputeResponse,
  Explanation,
  GetModelQuery,
  GetRecommendationsQuery,
  HistoryArtifact,
  ListedRun,
  ListRunsQuery,
  ListRunsResponse,
  ModelEvent,
  ModelHistory,
  ModelHistoryQuery,
  ModelPromotedEvent,
  ModelReport,
  ModelTrainedEvent,
  PromoteRequest,
  Recommendation,
  RecommendationsResponse,
  RecommendationsUpdatedEvent,
  RollbackRequest,
  Run,
  TokenResponse,
  TrainOperation,
  TrainRequest,
  TrainResponse,
  WebhookEvent,
} from "./types.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./verify-webhook.js";
