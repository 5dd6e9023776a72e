import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact } from "./redact.js";
import { parseRetryAfter } from "./retry-after.js";

const secretArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/);

describe("redact", () => {
  it("leaves no copy of a secret, wherever and however often it appears", () => {
    fc.assert(
      fc.property(secretArb, fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (secret, parts) => {
        const text = parts.join(secret);
        expect(redact(text, [secret])).not.toContain(secret);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("removes JWT-shaped strings even when the client never held them", () => {
    expect(redact("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc-_ was bad", [])).toBe(
      "token [redacted] was bad",
    );
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP-dates against the given clock", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-3", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
