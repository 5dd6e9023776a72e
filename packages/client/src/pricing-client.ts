import { apiRoot } from "./api-root.js";
import { ConditionalCache } from "./conditional-cache.js";
import {
  DEFAULT_TIMEOUTS_MS,
  type Deadline,
  type OperationName,
  sleep as realSleep,
  startDeadline,
} from "./deadline.js";
import { parseEnvelope } from "./error-envelope.js";
import { ApiError, NetworkError } from "./errors.js";
import { redact } from "./redact.js";
import { parseRetryAfter } from "./retry-after.js";
import { TokenCache, type TokenGrant } from "./token-cache.js";
import type {
  ComputeRequest,
  ComputeResponse,
  CreateOverridesRequest,
  CreateOverridesResponse,
  GetModelQuery,
  GetRecommendationsQuery,
  ListOverridesQuery,
  ListOverridesResponse,
  ListRunsQuery,
  ListRunsResponse,
  ModelHistory,
  ModelHistoryQuery,
  ModelReport,
  PromoteRequest,
  RecommendationsResponse,
  RollbackRequest,
  TokenResponse,
  TrainOperation,
  TrainRequest,
  TrainResponse,
} from "./types.js";

/** The subset of `fetch` the client uses; inject your own to add a proxy agent, logging or a test double. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RateLimitRetryOptions {
  /** Further attempts after a 429, default 2. */
  maxRetries?: number;
  /** Give up (surface the 429) when the server asks to wait longer than this, default 60 000 ms. */
  maxWaitMs?: number;
}

export interface PricingClientOptions {
  /**
   * The API root, e.g. `https://pricing.example.com/public/v1`. A bare origin (`https://pricing.example.com`)
   * gets `/public/v1` appended.
   */
  baseUrl: string;
  accessKey: string;
  secretKey: string;
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike;
  /** Clock for token expiry, epoch milliseconds. Defaults to `Date.now`. */
  now?: () => number;
  /** Wait used for `Retry-After`; must reject with `signal.reason` when aborted. Defaults to a timer. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Stop using a token this long before it expires, default 60 (spec §5.7). */
  refreshBeforeExpirySeconds?: number;
  /** Per-operation deadlines in ms; defaults: trainModel 6 min, computeRecommendations 2 min, others 30 s. */
  timeouts?: Partial<Record<OperationName, number>>;
  /** Wait and retry on 429 as `Retry-After` says. Off by default; `true` means `{maxRetries: 2, maxWaitMs: 60000}`. */
  retryOnRateLimit?: boolean | RateLimitRetryOptions;
  /**
   * Answers of `getRecommendations` and `listRuns` kept (by URL) to make the next read of the same URL
   * conditional: `If-None-Match` is sent, and on 304 the kept body is returned. Default 64; 0 turns it off.
   */
  conditionalCacheSize?: number;
  /** Makes the default `Idempotency-Key` of each POST; default `crypto.randomUUID`. */
  newIdempotencyKey?: () => string;
}

export interface CallOptions {
  /** Cancels the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the operation's deadline for this call, in ms. */
  timeoutMs?: number;
  /** Overrides the client's `retryOnRateLimit` for this call (the shared token exchange keeps the client's). */
  retryOnRateLimit?: boolean | RateLimitRetryOptions;
}

export interface PostOptions extends CallOptions {
  /**
   * `Idempotency-Key` of the call. By default a new UUID per call, sent again on the client's own retries (after a
   * 429 or a refused token), so the server runs the operation at most once. Pass your own to make your retries
   * of the same call safe too (the server keeps keys 24 h and replays the first answer); `false` sends none.
   */
  idempotencyKey?: string | false;
}

export interface WaitForOperationOptions {
  /** Cancels the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Give up with a `TimeoutError` after this long, default the `trainModel` deadline (6 min). */
  timeoutMs?: number;
  /** First pause between polls, default 500 ms; each pause grows by half up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest pause between polls, default 5 000 ms. */
  maxIntervalMs?: number;
  /** Called with each state read, e.g. to show `progress`. */
  onUpdate?: (operation: TrainOperation) => void;
}

type QueryValue = string | number | boolean | undefined | null;

interface RequestSpec {
  method: "GET" | "POST" | "DELETE";
  /** Relative to the API root, e.g. `/v2/runs`. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  /** Extra request headers (Idempotency-Key, If-None-Match). */
  headers?: Readonly<Record<string, string>>;
  /** A read whose answers carry an ETag: made conditional through the client's cache. */
  conditional?: boolean;
}

type ResolvedRetry = Required<RateLimitRetryOptions> | null;

/**
 * Client of the price-recommendation partner API. One method per operation; the token is handled for you:
 * exchanged on first use, cached, re-exchanged `refreshBeforeExpirySeconds` before expiry (one exchange however
 * many calls are waiting), and on a 401 replaced once and the call retried once. Keys are sent to
 * `POST /auth/token` only.
 *
 * Errors: `ApiError` (any non-2xx answer), `TimeoutError` (deadline passed), `NetworkError` (no HTTP answer), or
 * the signal's reason when the caller aborts. No error message contains a key or a token.
 */
export class PricingClient {
  readonly #apiRoot: string;
  readonly #accessKey: string;
  readonly #secretKey: string;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #timeouts: Readonly<Record<OperationName, number>>;
  readonly #retryOnRateLimit: ResolvedRetry;
  readonly #tokens: TokenCache;
  readonly #reads: ConditionalCache;
  readonly #newIdempotencyKey: () => string;
  /** Tokens this client has held, so that no error message can repeat one. */
  readonly #issuedTokens = new Set<string>();

  constructor(options: PricingClientOptions) {
    if (options.accessKey === "" || options.secretKey === "") {
      throw new TypeError("PricingClient: accessKey and secretKey must be non-empty");
    }
    this.#apiRoot = apiRoot(options.baseUrl);
    this.#accessKey = options.accessKey;
    this.#secretKey = options.secretKey;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? realSleep;
    this.#timeouts = { ...DEFAULT_TIMEOUTS_MS, ...options.timeouts };
    this.#retryOnRateLimit = resolveRetry(options.retryOnRateLimit);
    this.#reads = new ConditionalCache(options.conditionalCacheSize ?? 64);
    this.#newIdempotencyKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
    const refreshSeconds = options.refreshBeforeExpirySeconds ?? 60;
    if (!(refreshSeconds >= 0)) throw new TypeError("PricingClient: refreshBeforeExpirySeconds must be >= 0");
    this.#tokens = new TokenCache({
      exchange: () => this.#exchange(),
      now: this.#now,
      refreshBeforeExpiryMs: refreshSeconds * 1000,
    });
  }

  /**
   * `POST /auth/token`: exchanges the keys for a bearer token now and caches it. The other methods do this on
   * their own when needed; call it to fail fast on bad keys at start-up.
   */
  async exchangeToken(options: Omit<CallOptions, "retryOnRateLimit"> = {}): Promise<TokenResponse> {
    const deadline = startDeadline(
      "exchangeToken",
      options.timeoutMs ?? this.#timeouts.exchangeToken,
      options.signal,
    );
    try {
      const token = await this.#tokens.refresh(deadline.signal);
      return { access_token: token.accessToken, token_type: "Bearer", expires_in: token.lifetimeSeconds };
    } catch (error) {
      throw settled(error, deadline);
    } finally {
      deadline.dispose();
    }
  }

  /**
   * `GET /v2/recommendations`: the recommendations of a persisted run (`runs_ago` 0 = latest), by date range;
   * `explain: true` adds each item's `explanation` (stored with the run, so it never changes).
   */
  getRecommendations(
    query: GetRecommendationsQuery,
    options?: CallOptions,
  ): Promise<RecommendationsResponse> {
    return this.#call(
      "getRecommendations",
      { method: "GET", path: "/v2/recommendations", query, conditional: true },
      options,
    );
  }

  /** `GET /v2/runs`: persisted runs, newest first, each with the `runs_ago` that reads it. */
  listRuns(query: ListRunsQuery, options?: CallOptions): Promise<ListRunsResponse> {
    return this.#call("listRuns", { method: "GET", path: "/v2/runs", query, conditional: true }, options);
  }

  /**
   * `POST /v2/recommendations/compute`: runs the policy now (2 min deadline); persists a run unless `dry_run`;
   * `explain: true` adds each item's `explanation`.
   */
  computeRecommendations(body: ComputeRequest, options?: PostOptions): Promise<ComputeResponse> {
    return this.#post("computeRecommendations", "/v2/recommendations/compute", body, options);
  }

  /** `POST /v2/model/train`: trains a new artifact (6 min deadline); it becomes `latest`, and `approved` too with `auto_approve`. */
  trainModel(body: TrainRequest, options?: PostOptions): Promise<TrainResponse> {
    return this.#post("trainModel", "/v2/model/train", body, options);
  }

  /**
   * `POST /v2/model/train` with `Prefer: respond-async`: queues the training and answers at once (202) with its
   * operation; follow it with `waitForOperation` or `getOperation`. A second training of the company while one is
   * queued or running is 409 `training_in_progress`. Its deadline is `getOperation`'s: nothing is awaited.
   */
  trainAsync(body: TrainRequest, options: CallOptions = {}): Promise<TrainOperation> {
    return this.#call(
      "trainModel",
      { method: "POST", path: "/v2/model/train", body, headers: { prefer: "respond-async" } },
      { timeoutMs: this.#timeouts.getOperation, ...options },
    );
  }

  /** `GET /v2/operations/{operation_id}`: an asynchronous training's status, progress, result or error. */
  getOperation(operationId: string, options?: CallOptions): Promise<TrainOperation> {
    return this.#call(
      "getOperation",
      { method: "GET", path: `/v2/operations/${encodeURIComponent(operationId)}` },
      options,
    );
  }

  /**
   * Polls `getOperation` (pausing longer each time, and as long as a 429's `Retry-After` says) until the operation
   * has succeeded or failed, and resolves with that final state: `result` holds the train response, or `error`
   * the code the synchronous call would have failed with. Rejects with `TimeoutError` after `timeoutMs`.
   */
  async waitForOperation(
    operationId: string,
    options: WaitForOperationOptions = {},
  ): Promise<TrainOperation> {
    const deadline = startDeadline(
      "waitForOperation",
      options.timeoutMs ?? this.#timeouts.trainModel,
      options.signal,
    );
    const maxIntervalMs = options.maxIntervalMs ?? 5_000;
    try {
      for (let pause = options.intervalMs ?? 500; ; pause = Math.min(maxIntervalMs, pause * 1.5)) {
        const operation = await this.getOperation(operationId, {
          signal: deadline.signal,
          timeoutMs: Math.max(1, Math.min(this.#timeouts.getOperation, deadline.remainingMs())),
          retryOnRateLimit: true,
        });
        options.onUpdate?.(operation);
        if (operation.status === "succeeded" || operation.status === "failed") return operation;
        await this.#sleep(Math.min(pause, Math.max(0, deadline.remainingMs())), deadline.signal);
      }
    } catch (error) {
      throw settled(error, deadline);
    } finally {
      deadline.dispose();
    }
  }

  /** `POST /v2/model/promote`: moves the current latest artifact to `approved`; 409 `model_id_stale` otherwise. */
  promoteModel(body: PromoteRequest, options?: PostOptions): Promise<ModelReport> {
    return this.#post("promoteModel", "/v2/model/promote", body, options);
  }

  /** `GET /v2/model`: which source backs inference (`approved`, `latest` or `rule`) and both slots. */
  getModel(query: GetModelQuery, options?: CallOptions): Promise<ModelReport> {
    return this.#call("getModel", { method: "GET", path: "/v2/model", query }, options);
  }

  /**
   * `GET /v2/model/history`: stored artifacts (newest version first, with when each was last approved) and slot
   * changes (`trained`, `promoted`, `rolled_back`, newest first); `limit` and `offset` page both.
   */
  getModelHistory(query: ModelHistoryQuery, options?: CallOptions): Promise<ModelHistory> {
    return this.#call("getModelHistory", { method: "GET", path: "/v2/model/history", query }, options);
  }

  /**
   * `POST /v2/model/rollback`: approves again an artifact approved before, if `expected_approved_model_id` is
   * what is approved now (else 409 `approved_model_stale`); 422 `rollback_target_invalid` for another target.
   */
  rollbackModel(body: RollbackRequest, options?: PostOptions): Promise<ModelReport> {
    return this.#post("rollbackModel", "/v2/model/rollback", body, options);
  }

  /**
   * `POST /v2/overrides`: pins (`price`) or narrows (`min_price` / `max_price`) products' prices over dates, one
   * override or up to 200 all or nothing; runs computed after apply them. `recompute: true` also persists a fresh
   * on-demand run (its `run_id` in the answer). Refusals: 409 `override_overlap`, 422 `override_not_printable` /
   * `override_outside_guardrails`, 400 for a date before the company's today.
   */
  createOverrides(
    body: CreateOverridesRequest,
    options: PostOptions & { recompute?: boolean } = {},
  ): Promise<CreateOverridesResponse> {
    const { recompute, idempotencyKey = this.#newIdempotencyKey(), ...callOptions } = options;
    const headers: Record<string, string> =
      idempotencyKey === false ? {} : { "idempotency-key": idempotencyKey };
    return this.#call(
      "createOverrides",
      { method: "POST", path: "/v2/overrides", query: { recompute: recompute ?? false }, body, headers },
      callOptions,
    );
  }

  /** `GET /v2/overrides`: a company's overrides (of one product), by product then start date; `limit`/`offset` page them. */
  listOverrides(query: ListOverridesQuery, options?: CallOptions): Promise<ListOverridesResponse> {
    return this.#call("listOverrides", { method: "GET", path: "/v2/overrides", query }, options);
  }

  /** `DELETE /v2/overrides/{override_id}`: removes it; 404 `override_not_found` for an unknown (or removed) id. */
  deleteOverride(overrideId: string, companyId: string, options?: CallOptions): Promise<void> {
    return this.#call(
      "deleteOverride",
      {
        method: "DELETE",
        path: `/v2/overrides/${encodeURIComponent(overrideId)}`,
        query: { company_id: companyId },
      },
      options,
    );
  }

  #post<T>(operation: OperationName, path: string, body: unknown, options: PostOptions = {}): Promise<T> {
    const { idempotencyKey = this.#newIdempotencyKey(), ...callOptions } = options;
    // One key for every attempt of this call: the retries below (429, a refused token) reuse it.
    const headers: Record<string, string> =
      idempotencyKey === false ? {} : { "idempotency-key": idempotencyKey };
    return this.#call(operation, { method: "POST", path, body, headers }, callOptions);
  }

  async #call<T>(operation: OperationName, spec: RequestSpec, options: CallOptions = {}): Promise<T> {
    const deadline = startDeadline(operation, options.timeoutMs ?? this.#timeouts[operation], options.signal);
    const retry =
      options.retryOnRateLimit === undefined
        ? this.#retryOnRateLimit
        : resolveRetry(options.retryOnRateLimit);
    const url = this.#url(spec);
    const cached = spec.conditional === true ? this.#reads.get(url) : undefined;
    if (cached !== undefined) spec = { ...spec, headers: { ...spec.headers, "if-none-match": cached.etag } };
    try {
      let token = await this.#tokens.get(deadline.signal);
      let response = await this.#send(operation, spec, token.accessToken, deadline, retry);
      if (response.status === 401) {
        // The token was refused (expired, revoked, server restarted with new signing keys): one fresh token, one retry.
        await discardBody(response);
        token = await this.#tokens.replace(token, deadline.signal);
        response = await this.#send(operation, spec, token.accessToken, deadline, retry);
      }
      if (response.status === 304 && cached !== undefined) {
        await discardBody(response);
        return this.#parseJson(operation, response, cached.body) as T;
      }
      if (!response.ok) throw await this.#toApiError(operation, response);
      if (response.status === 204) {
        await discardBody(response);
        return undefined as T;
      }
      const text = await response.text();
      const parsed = this.#parseJson(operation, response, text) as T;
      const etag = response.headers.get("etag");
      if (spec.conditional === true && etag !== null) this.#reads.set(url, { etag, body: text });
      return parsed;
    } catch (error) {
      throw settled(error, deadline);
    } finally {
      deadline.dispose();
    }
  }

  /** The one exchange the token cache runs; its deadline is its own, as many callers may be waiting on it. */
  async #exchange(): Promise<TokenGrant> {
    const deadline = startDeadline("exchangeToken", this.#timeouts.exchangeToken);
    try {
      const response = await this.#send(
        "exchangeToken",
        {
          method: "POST",
          path: "/auth/token",
          body: { access_key: this.#accessKey, secret_key: this.#secretKey },
        },
        null,
        deadline,
        this.#retryOnRateLimit,
      );
      if (!response.ok) throw await this.#toApiError("exchangeToken", response);
      const body = await this.#readJson("exchangeToken", response);
      const grant = toGrant(body);
      if (grant === null) {
        throw new ApiError({
          status: response.status,
          code: "unexpected_response",
          message: "token response lacks access_token or a positive expires_in",
          requestId: response.headers.get("x-request-id"),
          operation: "exchangeToken",
        });
      }
      this.#issuedTokens.add(grant.accessToken);
      // Only recent tokens can still show up in an answer; the JWT pattern in `redact` covers the rest.
      for (const old of this.#issuedTokens) {
        if (this.#issuedTokens.size <= 4) break;
        this.#issuedTokens.delete(old);
      }
      return grant;
    } catch (error) {
      throw settled(error, deadline);
    } finally {
      deadline.dispose();
    }
  }

  /** Sends one request, and repeats it after a 429 when `retry` allows and the deadline leaves room. */
  async #send(
    operation: OperationName,
    spec: RequestSpec,
    bearer: string | null,
    deadline: Deadline,
    retry: ResolvedRetry,
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.#sendOnce(operation, spec, bearer, deadline.signal);
      if (response.status !== 429 || retry === null || attempt >= retry.maxRetries) return response;
      const waitMs = parseRetryAfter(response.headers.get("retry-after"), this.#now());
      if (waitMs === null || waitMs > retry.maxWaitMs || waitMs >= deadline.remainingMs()) return response;
      await discardBody(response);
      await this.#sleep(waitMs, deadline.signal);
    }
  }

  async #sendOnce(
    operation: OperationName,
    spec: RequestSpec,
    bearer: string | null,
    signal: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json", ...spec.headers };
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.body);
    }
    const init: RequestInit = { method: spec.method, headers, signal, redirect: "error" };
    if (body !== undefined) init.body = body;
    try {
      // redirect "error": a redirect could carry the keys or the bearer token to another origin.
      return await this.#fetch(this.#url(spec), init);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new NetworkError(operation, "no HTTP response (connection failed, reset or redirected)", {
        cause: error,
      });
    }
  }

  #url(spec: RequestSpec): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const search = params.toString();
    return `${this.#apiRoot}${spec.path}${search === "" ? "" : `?${search}`}`;
  }

  async #readJson(operation: OperationName, response: Response): Promise<unknown> {
    return this.#parseJson(operation, response, await response.text());
  }

  #parseJson(operation: OperationName, response: Response, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError({
        status: response.status,
        code: "unexpected_response",
        message: "response body is not JSON",
        requestId: response.headers.get("x-request-id"),
        operation,
      });
    }
  }

  async #toApiError(operation: OperationName, response: Response): Promise<ApiError> {
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), this.#now());
    let code = "unexpected_response";
    let message = `HTTP ${response.status} without the API error envelope`;
    let requestId = response.headers.get("x-request-id");
    try {
      const envelope = parseEnvelope(JSON.parse(await response.text()));
      if (envelope !== null) {
        code = envelope.code;
        message = envelope.message;
        requestId = envelope.request_id ?? requestId;
      }
    } catch {
      // Not JSON (a proxy page, a truncated body): keep the generic message rather than echo an unknown body.
    }
    return new ApiError({
      status: response.status,
      code,
      message: redact(message, [this.#secretKey, this.#accessKey, ...this.#issuedTokens]),
      requestId,
      retryAfterSeconds: retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
      operation,
    });
  }
}

function resolveRetry(option: boolean | RateLimitRetryOptions | undefined): ResolvedRetry {
  if (option === undefined || option === false) return null;
  const given = option === true ? {} : option;
  return { maxRetries: given.maxRetries ?? 2, maxWaitMs: given.maxWaitMs ?? 60_000 };
}

/** When the call's own deadline or the caller's signal fired, that reason wins over whatever error it caused. */
function settled(error: unknown, deadline: Deadline): unknown {
  return deadline.signal.aborted ? deadline.signal.reason : error;
}

async function discardBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

function toGrant(body: unknown): TokenGrant | null {
  if (typeof body !== "object" || body === null) return null;
  const { access_token: accessToken, expires_in: expiresIn } = body as Record<string, unknown>;
  if (typeof accessToken !== "string" || accessToken === "") return null;
  if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
  return { accessToken, expiresInSeconds: expiresIn };
}
