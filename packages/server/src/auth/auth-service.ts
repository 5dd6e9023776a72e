import { ApiError, type AuthService } from "@pricing/http-adapter";
import type { CompanyRepository } from "../repositories/companies.js";
import type { PartnerRepository } from "../repositories/partners.js";
import { secretMatches } from "./credentials.js";
import type { KeyRing } from "./key-ring.js";
import type { TokenSigner } from "./token-signer.js";

export interface AuthServiceDeps {
  partners: PartnerRepository;
  companies: CompanyRepository;
  signer: TokenSigner;
  peppers: KeyRing;
}

/** Token exchange and bearer checks over the partner tables. */
export function createAuthService(deps: AuthServiceDeps): AuthService {
  return {
    async exchangeToken(input) {
      const row = await deps.partners.findCredentials(input.access_key);
      // Always hash and compare, then decide, so every failure looks and takes the same.
      // The pepper that made this row's hash; an unknown one (removed too early) hashes with the current and fails.
      const pepper = deps.peppers.byId(row?.pepper_id) ?? deps.peppers.current;
      const matches = secretMatches(input.secret_key, row?.secret_hash, pepper.value);
      if (!row || !matches || row.superseded_at !== null || row.disabled_at !== null) {
        throw new ApiError("invalid_credentials");
      }
      return {
        access_token: await deps.signer.mint(row.partner_id, row.token_generation),
        token_type: "Bearer" as const,
        expires_in: deps.signer.lifetimeSeconds,
      };
    },

    async verifyToken(token) {
      const verified = await deps.signer.verify(token);
      // A disabled (or deleted) partner's tokens stop working at once, not at expiry; and since disabling moves the
      // partner's token generation on, those minted before it stay refused after `partner enable`.
      const generation = await deps.partners.acceptedTokenGeneration(verified.partnerId);
      if (generation !== verified.generation) throw new ApiError("invalid_token");
      return { partnerId: verified.partnerId, tokenId: verified.tokenId };
    },

    async isCompanyAccessible(partnerId, companyId) {
      return deps.companies.isMapped(partnerId, companyId);
    },
  };
}
