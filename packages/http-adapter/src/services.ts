import type { FastifyBaseLogger } from "fastify";
import type { TokenRequest, TokenResponse } from "./schemas/auth.js";
import type {
  GetModelQuery,
  ModelHistory,
  ModelHistoryQuery,
  ModelReport,
  PromoteRequest,
  RollbackRequest,
  TrainRequest,
  TrainResponse,
} from "./schemas/model.js";
import type { Operation, OperationParams } from "./schemas/operations.js";
import type {
  CreateOverridesQuery,
  CreateOverridesRequest,
  CreateOverridesResponse,
  DeleteOverrideInput,
  ListOverridesQuery,
  ListOverridesResponse,
} from "./schemas/overrides.js";
import type {
  ComputeRequest,
  ComputeResponse,
  GetRecommendationsQuery,
  RecommendationsResponse,
} from "./schemas/recommendations.js";
import type { ListRunsQuery, ListRunsResponse } from "./schemas/runs.js";

/** Who is calling, established by the bearer check. */
export interface Principal {
  partnerId: string;
  /** The token's `jti`. */
  tokenId: string;
}

/** Per-request context handed to every service call. */
export interface RequestContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** Set on bearer-authenticated routes. */
  principal?: Principal;
  /** Client address as Fastify sees it. */
  ip: string;
  /**
   * Set on compute and train: aborted (with a `ClientGoneError`) when the client goes away before the answer is
   * sent. Work nobody waits for may stop and reject with `signal.reason`; its in-flight slot is already free.
   */
  signal?: AbortSignal;
}

/** A content coding the adapter can send a cached representation in (RFC 9110 §8.4.1). */
export type ContentCoding = "br" | "gzip";

/** Bytes with their strong entity tag. */
export interface TaggedBytes {
  bytes: Buffer;
  etag: string;
}

/**
 * A response already serialized as JSON (UTF-8) with its strong entity tag (`strongEtag` of exactly these bytes),
 * computed once by whoever made the bytes, so a read served from a cache never hashes them again. `coded` holds the
 * same JSON content-coded, each with its own tag (RFC 9110 §8.8.3: a strong validator differs per coding), so a
 * cached read is compressed once, not per request; `taggedJson` makes all of them.
 */
export interface TaggedJson extends TaggedBytes {
  coded?: Partial<Record<ContentCoding, TaggedBytes>>;
}

/**
 * Credentials and token checks. Implementations throw `ApiError` with `invalid_credentials`, `invalid_token` or
 * `token_expired`; the adapter maps them to the envelope.
 */
export interface AuthService {
  exchangeToken(input: TokenRequest, ctx: RequestContext): Promise<TokenResponse>;
  /** Verifies signature, algorithm, issuer, audience and expiry, and that the partner is still enabled. */
  verifyToken(token: string): Promise<Principal>;
  isCompanyAccessible(partnerId: string, companyId: string): Promise<boolean>;
}

/**
 * The V2 pricing operations. The company has already been checked against the partner when these run.
 * Implementations throw `ApiError` (`no_run_at_offset`, `model_id_stale`, `training_in_progress`,
 * `insufficient_history`, `unavailable`) for expected failures.
 */
export interface PricingService {
  listRuns(input: ListRunsQuery, ctx: RequestContext): Promise<ListRunsResponse>;
  getRecommendations(input: GetRecommendationsQuery, ctx: RequestContext): Promise<RecommendationsResponse>;
  /**
   * Optional fast path of `getRecommendations`: the response already serialized, which the route sends as is with
   * the given ETag, skipping the response serializer and the hash, in the coding the client accepts best among
   * those given. Persisted runs are immutable, so an implementation may cache these per (run, filter); it must only
   * return bytes of a valid `RecommendationsResponse` with their own `strongEtag`, and codings of exactly those
   * bytes (`taggedJson` makes both).
   */
  getRecommendationsJson?(input: GetRecommendationsQuery, ctx: RequestContext): Promise<TaggedJson>;
  compute(input: ComputeRequest, ctx: RequestContext): Promise<ComputeResponse>;
  train(input: TrainRequest, ctx: RequestContext): Promise<TrainResponse>;
  /** Queues the training and answers at once with its operation (`Prefer: respond-async`). */
  trainAsync(input: TrainRequest, ctx: RequestContext): Promise<Operation>;
  /**
   * The operation if it exists and its company is one of the caller's (`ctx.principal`); otherwise throws
   * `operation_not_found`, the same for both.
   */
  getOperation(input: OperationParams, ctx: RequestContext): Promise<Operation>;
  promote(input: PromoteRequest, ctx: RequestContext): Promise<ModelReport>;
  getModel(input: GetModelQuery, ctx: RequestContext): Promise<ModelReport>;
  getModelHistory(input: ModelHistoryQuery, ctx: RequestContext): Promise<ModelHistory>;
  /** Throws `approved_model_stale` and `rollback_target_invalid` for the expected refusals. */
  rollback(input: RollbackRequest, ctx: RequestContext): Promise<ModelReport>;
  /**
   * Throws `override_overlap`, `override_outside_guardrails`, `override_not_printable` and `validation_error`
   * (a past date, an unknown product) for the expected refusals; creates nothing then.
   */
  createOverrides(
    input: CreateOverridesRequest,
    query: CreateOverridesQuery,
    ctx: RequestContext,
  ): Promise<CreateOverridesResponse>;
  listOverrides(input: ListOverridesQuery, ctx: RequestContext): Promise<ListOverridesResponse>;
  /** Throws `override_not_found` for an unknown id, one of another company, or one already removed. */
  deleteOverride(input: DeleteOverrideInput, ctx: RequestContext): Promise<void>;
}

/** Readiness probe: resolves false (or throws) when the service cannot take traffic. */
export type ReadinessCheck = () => Promise<boolean>;
