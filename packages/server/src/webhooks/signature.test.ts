import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook } from "./signature.js";

describe("webhook signing", () => {
  it("matches the Standard Webhooks spec's example signature", () => {
    // The spec's (and the reference library's) test vector.
    const signed = signWebhook({
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signed.headers["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    expect(signed.headers["webhook-id"]).toBe("msg_p5jXN8AQM9LWM0D4loKWxJek");
    expect(signed.headers["webhook-timestamp"]).toBe("1614265330");
  });

  it("keys the HMAC by the decoded base64 part of the secret, over id.timestamp.body", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    expect(key).toHaveLength(32);
    const body = '{"type":"model.trained"}';
    const expected = createHmac("sha256", key).update(`msg_1.42.${body}`).digest("base64");
    expect(signWebhook({ secret, id: "msg_1", timestamp: 42, body }).headers["webhook-signature"]).toBe(
      `v1,${expected}`,
    );
  });

  it("gives each endpoint its own secret and refuses one without the prefix", () => {
    expect(generateWebhookSecret()).not.toBe(generateWebhookSecret());
    expect(() => signWebhook({ secret: "c2VjcmV0", id: "m", timestamp: 1, body: "" })).toThrow(/whsec_/);
  });
});
