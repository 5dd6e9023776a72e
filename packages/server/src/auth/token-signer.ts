import { randomUUID, webcrypto } from "node:crypto";
import { ApiError } from "@pricing/http-adapter";
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../clock.js";
import type { KeyRing, RingKey } from "./key-ring.js";
import { createVerifiedTokenCache } from "./verified-token-cache.js";

export const TOKEN_LIFETIME_SECONDS = 900;
/** How far the clocks of whoever minted a token and of this server may disagree. */
export const CLOCK_SKEW_SECONDS = 30;
const ALGORITHM = "HS256";

export interface TokenSignerOptions {
  /** The current key signs; every key verifies the tokens whose `kid` names it. */
  keys: KeyRing;
  issuer: string;
  audience: string;
  clock: Clock;
  lifetimeSeconds?: number;
}

export interface VerifiedToken {
  partnerId: string;
  tokenId: string;
  expiresAt: number;
  /** The partner's token generation when it was minted; disabling the partner moves past it for good. */
  generation: number;
}

/**
 * Mints and verifies partner JWTs: HS256 only, with iss, aud, sub, iat, exp, jti, the partner's token generation
 * (`gen`) and a kid naming the key.
 */
export function createTokenSigner(options: TokenSignerOptions) {
  const lifetime = options.lifetimeSeconds ?? TOKEN_LIFETIME_SECONDS;
  // The kid names the key without revealing it, so that tokens of an older key stay verifiable after a rotation.
  const kid = options.keys.current.id;
  const imported = new Map<string, Promise<webcrypto.CryptoKey>>();
  const cryptoKey = (key: RingKey) => {
    let promise = imported.get(key.id);
    if (promise === undefined) {
      promise = webcrypto.subtle.importKey(
        "raw",
        new TextEncoder().encode(key.value),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign", "verify"],
      );
      imported.set(key.id, promise);
    }
    return promise;
  };

  const verified = createVerifiedTokenCache<VerifiedToken>();

  return {
    kid,
    lifetimeSeconds: lifetime,

    async mint(partnerId: string, generation: number): Promise<string> {
      const iat = Math.floor(options.clock().getTime() / 1000);
      return new SignJWT({ gen: generation })
        .setProtectedHeader({ alg: ALGORITHM, typ: "JWT", kid })
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setSubject(partnerId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + lifetime)
        .setJti(randomUUID())
        .sign(await cryptoKey(options.keys.current));
    },

    /** Throws ApiError `token_expired` or `invalid_token`; never says more about why. */
    async verify(token: string): Promise<VerifiedToken> {
      const now = Math.floor(options.clock().getTime() / 1000);
      const known = verified.get(token, now);
      if (known !== undefined) return known;
      const result = await verifyInFull(token);
      verified.set(token, result, now);
      return result;
    },
  };

  async function verifyInFull(token: string): Promise<VerifiedToken> {
    try {
      const header = decodeProtectedHeader(token);
      const key = options.keys.byId(header.kid);
      if (header.alg !== ALGORITHM || key === undefined) throw new ApiError("invalid_token");
      const { payload } = await jwtVerify(token, await cryptoKey(key), {
        algorithms: [ALGORITHM],
        issuer: options.issuer,
        audience: options.audience,
        currentDate: options.clock(),
        requiredClaims: ["sub", "iat", "exp", "jti"],
      });
      const { sub, jti, exp, iat, gen = 0 } = payload;
      if (typeof sub !== "string" || typeof jti !== "string" || typeof exp !== "number") {
        throw new ApiError("invalid_token");
      }
      // A valid signature is not enough: a token that lives longer than we ever mint, or was minted in the future,
      // came from a leaked key or a broken clock, and is refused either way.
      const now = Math.floor(options.clock().getTime() / 1000);
      if (
        typeof iat !== "number" ||
        iat > now + CLOCK_SKEW_SECONDS ||
        exp - iat > lifetime + CLOCK_SKEW_SECONDS
      ) {
        throw new ApiError("invalid_token");
      }
      if (typeof gen !== "number" || !Number.isSafeInteger(gen) || gen < 0)
        throw new ApiError("invalid_token");
      return { partnerId: sub, tokenId: jti, expiresAt: exp, generation: gen };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof errors.JWTExpired) throw new ApiError("token_expired");
      throw new ApiError("invalid_token");
    }
  }
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
