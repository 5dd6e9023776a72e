import { createHash, randomUUID, webcrypto } from "node:crypto";
import { ApiError } from "@pricing/http-adapter";
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../clock.js";
import { createVerifiedTokenCache } from "./verified-token-cache.js";

export const TOKEN_LIFETIME_SECONDS = 900;
const ALGORITHM = "HS256";

export interface TokenSignerOptions {
  secret: string;
  issuer: string;
  audience: string;
  clock: Clock;
  lifetimeSeconds?: number;
}

export interface VerifiedToken {
  partnerId: string;
  tokenId: string;
  expiresAt: number;
}

/** Mints and verifies partner JWTs: HS256 only, with iss, aud, sub, iat, exp, jti and a kid naming the key. */
export function createTokenSigner(options: TokenSignerOptions) {
  const lifetime = options.lifetimeSeconds ?? TOKEN_LIFETIME_SECONDS;
  // The kid names the key without revealing it, so a future key rotation can keep old tokens verifiable.
  const kid = createHash("sha256").update(`kid:${options.secret}`).digest("base64url").slice(0, 16);
  const keyPromise = webcrypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(options.secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );

  const verified = createVerifiedTokenCache<VerifiedToken>();

  return {
    kid,
    lifetimeSeconds: lifetime,

    async mint(partnerId: string): Promise<string> {
      const iat = Math.floor(options.clock().getTime() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: ALGORITHM, typ: "JWT", kid })
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setSubject(partnerId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + lifetime)
        .setJti(randomUUID())
        .sign(await keyPromise);
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
      if (header.alg !== ALGORITHM || header.kid !== kid) throw new ApiError("invalid_token");
      const { payload } = await jwtVerify(token, await keyPromise, {
        algorithms: [ALGORITHM],
        issuer: options.issuer,
        audience: options.audience,
        currentDate: options.clock(),
        requiredClaims: ["sub", "iat", "exp", "jti"],
      });
      if (
        typeof payload.sub !== "string" ||
        typeof payload.jti !== "string" ||
        typeof payload.exp !== "number"
      ) {
        throw new ApiError("invalid_token");
      }
      return { partnerId: payload.sub, tokenId: payload.jti, expiresAt: payload.exp };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof errors.JWTExpired) throw new ApiError("token_expired");
      throw new ApiError("invalid_token");
    }
  }
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
