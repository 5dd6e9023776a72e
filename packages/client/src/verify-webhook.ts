import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEvent } from "./types.js";

/** Seconds a webhook's timestamp may differ from your clock (Standard Webhooks' default). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const SECRET_PREFIX = "whsec_";

/** Why a webhook was refused; never carries the secret or the body. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

/** Request headers as Node (`IncomingMessage.headers`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Default {@link WEBHOOK_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /** Your clock (tests). Default `new Date()`. */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === "string" ? value : value?.join(" ");
}

function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  if (key.length === 0) throw new WebhookVerificationError("the webhook secret is empty or not base64");
  return key;
}

/**
 * Checks a webhook the pricing server sent (Standard Webhooks) and returns its parsed body: the
 * `webhook-signature` header must hold a `v1,` signature (one of several, space-separated) equal, compared in
 * constant time, to the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed by the base64 part
 * of `secret` (`whsec_...`, shown once by `pricing webhook add`), and the timestamp must be within 5 minutes of
 * your clock. Pass the raw body exactly as received (a string or the bytes), not a re-serialized object.
 * Throws {@link WebhookVerificationError} otherwise. Deliveries are at least once: drop a `webhook-id` you have
 * already handled.
 *
 * @example
 * const event = verifyWebhook(req.headers, rawBody, process.env.PRICING_WEBHOOK_SECRET!);
 * if (event.type === "recommendations.updated") await refresh(event.data.company_id);
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  body: string | Uint8Array,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number");
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError("webhook-timestamp is too far from the current time");
  }
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const expected = createHmac("sha256", signingKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(raw)
    .digest();
  const matches = signatures.split(" ").some((versioned) => {
    const [version, signature] = versioned.split(",", 2);
    if (version !== "v1" || signature === undefined) return false;
    const given = Buffer.from(signature, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("no webhook-signature matches the body");
  try {
    return JSON.parse(raw.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
}
