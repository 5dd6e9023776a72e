import { PolicyStoreError } from "./errors.js";

/** Throws `invalid_input` unless `companyId` is a string of 1 to 200 characters (any characters). */
export function assertCompanyId(companyId: string): void {
  if (typeof companyId !== "string" || companyId.length === 0 || companyId.length > 200) {
    throw new PolicyStoreError("invalid_input", "company id must be a string of 1 to 200 characters");
  }
}
