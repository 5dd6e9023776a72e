/** Why an artifact could not be loaded. */
export type ArtifactErrorCode = "artifact_invalid" | "artifact_incompatible";

/**
 * The one error type of artifact loading: the policy store's resolver reports `artifact_incompatible` as such and
 * every other code as `artifact_unreadable`.
 */
export class PolicyArtifactError extends Error {
  readonly code: ArtifactErrorCode;

  constructor(code: ArtifactErrorCode, message: string) {
    super(message);
    this.name = "PolicyArtifactError";
    this.code = code;
  }
}
