import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks' prefix of a signing secret. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** Bytes of a generated signing key: as long as the HMAC-SHA256 output. */
const SECRET_BYTES = 32;

/** A new endpoint's signing secret: `whsec_` + base64 of 32 random bytes. Shown once; stored to sign. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** The HMAC key of a `whsec_` secret: its base64 part, decoded. */
function signingKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error("a webhook secret starts with whsec_");
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
  if (key.length === 0) throw new Error("a webhook secret's key is empty");
  return key;
}

export interface SignedWebhook {
  /** `webhook-id`, `webhook-timestamp`, `webhook-signature` and the JSON content type. */
  headers: Record<string, string>;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`, keyed by the secret's decoded base64 part; `timestamp` is Unix seconds.
 */
export function signWebhook(input: {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
}): SignedWebhook {
  const signature = createHmac("sha256", signingKey(input.secret))
    .update(`${input.id}.${input.timestamp}.${input.body}`)
    .digest("base64");
  return {
    headers: {
      "content-type": "application/json",
      "webhook-id": input.id,
      "webhook-timestamp": String(input.timestamp),
      "webhook-signature": `v1,${signature}`,
    },
  };
}
