import type { OperationName } from "./deadline.js";
import type { components, operations } from "./openapi.gen.js";

/**
 * The operationIds of the server's OpenAPI document that the client calls; each is one client method. The
 * `webhook_*` operations are requests the server sends to you (see `verifyWebhook`).
 */
export type OperationId = Exclude<keyof operations, `webhook_${string}`>;

type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type JsonBodyOf<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type OkOf<O> = O extends { responses: { 200: { content: { "application/json": infer R } } } } ? R : never;

/** Response of the key exchange: `{access_token, token_type: "Bearer", expires_in}`. */
export type TokenResponse = OkOf<operations["exchangeToken"]>;
export type TokenRequest = JsonBodyOf<operations["exchangeToken"]>;

/** The read's query; `explain: true` (or "true") adds each item's `explanation`. */
export type GetRecommendationsQuery = Omit<QueryOf<operations["getRecommendations"]>, "explain"> & {
  explain?: boolean | "true" | "false";
};
export type RecommendationsResponse = OkOf<operations["getRecommendations"]>;
export type Recommendation = RecommendationsResponse["recommendations"][number];
/** Why a price is what it is (`explain`): the rule's own price, the demand fit, and the constraint that bound it. */
export type Explanation = components["schemas"]["Explanation"];
export type Run = RecommendationsResponse["run"];

export type ListRunsQuery = QueryOf<operations["listRuns"]>;
export type ListRunsResponse = OkOf<operations["listRuns"]>;
export type ListedRun = ListRunsResponse["runs"][number];

export type ComputeRequest = JsonBodyOf<operations["computeRecommendations"]>;
export type ComputeResponse = OkOf<operations["computeRecommendations"]>;

export type TrainRequest = JsonBodyOf<operations["trainModel"]>;
export type TrainResponse = OkOf<operations["trainModel"]>;

export type PromoteRequest = JsonBodyOf<operations["promoteModel"]>;
export type GetModelQuery = QueryOf<operations["getModel"]>;
/** Which artifact backs inference for a company (`approved`, `latest` or `rule`), and both slots. */
export type ModelReport = OkOf<operations["getModel"]>;

export type ModelHistoryQuery = QueryOf<operations["getModelHistory"]>;
/** A company's stored artifacts and model slot changes (trained, promoted, rolled_back), newest first. */
export type ModelHistory = OkOf<operations["getModelHistory"]>;
export type ModelEvent = ModelHistory["events"][number];
export type HistoryArtifact = ModelHistory["artifacts"][number];
export type RollbackRequest = JsonBodyOf<operations["rollbackModel"]>;
export type TrainOperation = OkOf<operations["getOperation"]>;

/** One override, or `{company_id, overrides: [...]}` (up to 200, all or nothing). */
export type CreateOverridesRequest = JsonBodyOf<operations["createOverrides"]>;
export type CreateOverridesResponse = OkOf<operations["createOverrides"]>;
/** A partner's pin (`price`) or narrowing (`min_price` / `max_price`) of one product's price over dates. */
export type Override = components["schemas"]["Override"];
export type ListOverridesQuery = QueryOf<operations["listOverrides"]>;
export type ListOverridesResponse = OkOf<operations["listOverrides"]>;

/** Body of a `recommendations.updated` webhook: a run was persisted for one of your companies. */
export type RecommendationsUpdatedEvent = components["schemas"]["RecommendationsUpdatedEvent"];
/** Body of a `model.trained` webhook: a training committed a new version into `latest`. */
export type ModelTrainedEvent = components["schemas"]["ModelTrainedEvent"];
/** Body of a `model.promoted` webhook: the approved model changed (promote, auto-approve or rollback). */
export type ModelPromotedEvent = components["schemas"]["ModelPromotedEvent"];
/** Any webhook body the server sends, discriminated by `type`. */
export type WebhookEvent = RecommendationsUpdatedEvent | ModelTrainedEvent | ModelPromotedEvent;

/** The error envelope of every 4xx/5xx answer. */
export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** Fails to compile when the server's document gains or loses an operation the client has no method for. */
export type EveryOperationHasAMethod = Assert<Same<OperationId, OperationName>>;
