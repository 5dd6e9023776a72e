import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "./verify-webhook.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const KEY = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const NOW = new Date("2026-11-23T12:00:00Z");
const TS = String(NOW.getTime() / 1000);
const BODY = JSON.stringify({
  type: "model.trained",
  timestamp: NOW.toISOString(),
  data: { company_id: "acme" },
});

function sign(id: string, timestamp: string, body: string, key = KEY): string {
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

const headers = (signature: string, timestamp = TS) => ({
  "webhook-id": "msg_1",
  "webhook-timestamp": timestamp,
  "webhook-signature": signature,
});

describe("verifyWebhook", () => {
  it("accepts the Standard Webhooks spec's example", () => {
    const event = verifyWebhook(
      {
        "Webhook-Id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "Webhook-Timestamp": "1614265330",
        "Webhook-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      },
      '{"test": 2432232314}',
      SECRET,
      { now: new Date(1614265330_000) },
    );
    expect(event).toEqual({ test: 2432232314 });
  });

  it("returns the parsed event for a valid signature, from a string, bytes or a Headers object", () => {
    const signature = sign("msg_1", TS, BODY);
    expect(verifyWebhook(headers(signature), BODY, SECRET, { now: NOW }).type).toBe("model.trained");
    expect(verifyWebhook(headers(signature), new TextEncoder().encode(BODY), SECRET, { now: NOW }).type).toBe(
      "model.trained",
    );
    expect(verifyWebhook(new Headers(headers(signature)), BODY, SECRET, { now: NOW }).type).toBe(
      "model.trained",
    );
  });

  it("accepts when any of several signatures matches (a secret being rotated)", () => {
    const other = sign("msg_1", TS, BODY, Buffer.from("another key"));
    const header = `v1a,xyz ${other} ${sign("msg_1", TS, BODY)}`;
    expect(verifyWebhook(headers(header), BODY, SECRET, { now: NOW }).type).toBe("model.trained");
  });

  it("refuses a tampered body, another id, a wrong secret or a signature of another version", () => {
    const signature = sign("msg_1", TS, BODY);
    const refuse = (fn: () => unknown) => expect(fn).toThrow(WebhookVerificationError);
    refuse(() => verifyWebhook(headers(signature), BODY.replace("acme", "acmf"), SECRET, { now: NOW }));
    refuse(() => verifyWebhook({ ...headers(signature), "webhook-id": "msg_2" }, BODY, SECRET, { now: NOW }));
    refuse(() => verifyWebhook(headers(signature), BODY, "whsec_c2VjcmV0", { now: NOW }));
    refuse(() => verifyWebhook(headers(signature.replace("v1,", "v2,")), BODY, SECRET, { now: NOW }));
    refuse(() => verifyWebhook(headers("v1,"), BODY, SECRET, { now: NOW }));
  });

  it("tolerates 5 minutes of clock skew either way, not more", () => {
    const at = (offsetSeconds: number) => String(Number(TS) + offsetSeconds);
    for (const offset of [-300, 300]) {
      const ts = at(offset);
      expect(verifyWebhook(headers(sign("msg_1", ts, BODY), ts), BODY, SECRET, { now: NOW }).type).toBe(
        "model.trained",
      );
    }
    for (const offset of [-301, 301]) {
      const ts = at(offset);
      expect(() => verifyWebhook(headers(sign("msg_1", ts, BODY), ts), BODY, SECRET, { now: NOW })).toThrow(
        /too far/,
      );
    }
  });

  it("refuses missing headers and a timestamp that is not a number, never echoing the secret", () => {
    expect(() => verifyWebhook({}, BODY, SECRET)).toThrow(/missing/);
    try {
      verifyWebhook(headers(sign("msg_1", "12a", BODY), "12a"), BODY, SECRET, { now: NOW });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/not a number/);
      expect((error as Error).message).not.toContain(SECRET.slice(6));
    }
  });
});
