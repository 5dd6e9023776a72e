import { abortable } from "./deadline.js";

/** A bearer token held by the client, with the instant (epoch ms, client clock) after which it is unusable. */
export interface CachedToken {
  readonly accessToken: string;
  readonly expiresAtMs: number;
  /** From this instant on the token is no longer handed out; a new exchange is made instead. */
  readonly refreshAtMs: number;
  readonly lifetimeSeconds: number;
}

export interface TokenGrant {
  readonly accessToken: string;
  /** Lifetime in seconds, as `expires_in` of the token response. */
  readonly expiresInSeconds: number;
}

export interface TokenCacheOptions {
  /** Performs one key exchange. Runs at most once at a time, however many calls wait for a token. */
  exchange: () => Promise<TokenGrant>;
  /** Epoch milliseconds. */
  now: () => number;
  /** How long before expiry a cached token stops being used, in milliseconds. */
  refreshBeforeExpiryMs: number;
}

/**
 * Token cache with single-flight exchange (spec §5.7): a cached token is used until `refreshBeforeExpiryMs` before
 * its expiry; concurrent callers that find no usable token all wait on the same exchange.
 */
export class TokenCache {
  readonly #options: TokenCacheOptions;
  #cached: CachedToken | null = null;
  #pending: Promise<CachedToken> | null = null;

  constructor(options: TokenCacheOptions) {
    this.#options = options;
  }

  /** A usable token: the cached one while it is fresh enough, else the result of the (shared) exchange. */
  get(signal: AbortSignal): Promise<CachedToken> {
    const cached = this.#cached;
    if (cached !== null && this.#isFresh(cached)) return Promise.resolve(cached);
    return abortable(this.#exchangeOnce(), signal);
  }

  /**
   * Called after the server answered 401 to `rejected`. Drops it, unless another call already replaced it, and
   * returns a token to retry with. Many calls rejected together still cause one exchange.
   */
  replace(rejected: CachedToken, signal: AbortSignal): Promise<CachedToken> {
    if (this.#cached === rejected) this.#cached = null;
    return this.get(signal);
  }

  /** Forces a new exchange (joining one already in flight) and caches its result. */
  refresh(signal: AbortSignal): Promise<CachedToken> {
    this.#cached = null;
    return abortable(this.#exchangeOnce(), signal);
  }

  clear(): void {
    this.#cached = null;
  }

  #isFresh(token: CachedToken): boolean {
    return this.#options.now() < token.refreshAtMs;
  }

  #exchangeOnce(): Promise<CachedToken> {
    if (this.#pending === null) {
      // Expiry is counted from when the exchange was sent, so network latency only makes us refresh earlier.
      const sentAtMs = this.#options.now();
      const pending = this.#options.exchange().then((grant) => {
        const lifetimeMs = grant.expiresInSeconds * 1000;
        // A server configured with very short tokens must not make every call exchange: keep half the lifetime.
        const marginMs = Math.min(this.#options.refreshBeforeExpiryMs, lifetimeMs / 2);
        const token: CachedToken = {
          accessToken: grant.accessToken,
          expiresAtMs: sentAtMs + lifetimeMs,
          refreshAtMs: sentAtMs + lifetimeMs - marginMs,
          lifetimeSeconds: grant.expiresInSeconds,
        };
        this.#cached = token;
        return token;
      });
      this.#pending = pending;
      const settle = () => {
        if (this.#pending === pending) this.#pending = null;
      };
      pending.then(settle, settle);
    }
    return this.#pending;
  }
}
