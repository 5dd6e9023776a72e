const JWT_PATTERN = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;
const REDACTED = "[redacted]";

/**
 * Removes the given secrets, and anything shaped like a JWT, from text that is about to become an error message.
 * Servers are not supposed to echo credentials, but the client must not rely on that: error messages end up in
 * partners' logs and bug reports.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would blank out ordinary words; real keys and tokens are far longer.
    if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out.replace(JWT_PATTERN, REDACTED);
}
