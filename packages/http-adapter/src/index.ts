export { ClientGoneError } from "./client-gone.js";
export { ifNoneMatchMatches, strongEtag } from "./conditional-get.js";
export { codedEtag, taggedJson } from "./content-coding.js";
export { type ErrorTranslator, toApiError } from "./error-handler.js";
export {
  ApiError,
  type ApiErrorOptions,
  CONSOLE_ERROR_CODES,
  codeToStatus,
  DEFAULT_MESSAGES,
  ERROR_CODES,
  type ErrorCode,
  type ErrorEnvelope,
  errorEnvelopeSchema,
  isApiError,
  type PartnerErrorCode,
} from "./errors.js";
export {
  canonicalJson,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  type IdempotencyClaim,
  type IdempotencyClaimInput,
  type IdempotencyOptions,
  type IdempotencyRecord,
  type IdempotencyStore,
  requestFingerprint,
  type StoredResponse,
} from "./idempotency.js";
export { logSerializers, REDACTED, redactUrl } from "./log-redaction.js";
export type { OpenApiOptions } from "./openapi.js";
export { API_VERSION } from "./openapi.js";
export { renderOpenApiDocument } from "./openapi-document.js";
export { adapterServerOptions, DEFAULT_BODY_LIMIT, type PricingApiOptions, pricingApi } from "./plugin.js";
export {
  type RateLimitRedis,
  type RateLimits,
  type RateLimitsInput,
  rateLimitsSchema,
  type SharedRateLimitStore,
} from "./rate-limits.js";
export * from "./schemas/auth.js";
export * from "./schemas/common.js";
export * from "./schemas/model.js";
export * from "./schemas/operations.js";
export * from "./schemas/overrides.js";
export * from "./schemas/recommendations.js";
export * from "./schemas/runs.js";
export * from "./schemas/webhooks.js";
export type {
  AuthService,
  ContentCoding,
  PricingService,
  Principal,
  ReadinessCheck,
  RequestContext,
  TaggedBytes,
  TaggedJson,
} from "./services.js";
