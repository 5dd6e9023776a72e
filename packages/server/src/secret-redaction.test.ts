import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { redactSecrets } from "./secret-redaction.js";

const SECRET = "sk_live_nested-0123456789";
const TOKEN = "eyJ.nested-token.sig";

function lineOf(log: (logger: ReturnType<typeof createLogger>) => void): string {
  const lines: string[] = [];
  log(createLogger({ logLevel: "info" }, { write: (line: string) => void lines.push(line) }));
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

describe("redactSecrets", () => {
  it("returns a line without a nested secret as it is, without copying it", () => {
    const line = { req: { method: "GET" }, res: { statusCode: 200 }, responseTime: 1.5 };
    expect(redactSecrets(line)).toBe(line);
  });

  it("censors secret fields one object down in a copy, leaving the caller's objects untouched", () => {
    const partner = { id: "p1", secret_key: SECRET, access_token: TOKEN };
    const line = { partner, company_id: "co-1" };
    expect(redactSecrets(line)).toEqual({
      partner: { id: "p1", secret_key: "[redacted]", access_token: "[redacted]" },
      company_id: "co-1",
    });
    expect(partner.secret_key).toBe(SECRET);
  });
});

describe("createLogger's redaction", () => {
  it("censors secret fields at the top of a line, and one object below a top-level secret field", () => {
    const line = lineOf((logger) =>
      logger.info({ secret_key: SECRET, access_token: { token: TOKEN, access_token: TOKEN } }, "top"),
    );
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(TOKEN);
    expect(JSON.parse(line)).toMatchObject({ secret_key: "[redacted]", access_token: "[redacted]" });
  });

  it("keeps an error that carries a secret an error: message and stack logged, the secret not", () => {
    const err = Object.assign(new Error("exchange failed"), { secret_key: SECRET });
    const line = lineOf((logger) => logger.error({ err }, "failed"));
    expect(line).not.toContain(SECRET);
    expect(JSON.parse(line).err).toMatchObject({
      type: "Error",
      message: "exchange failed",
      secret_key: "[redacted]",
    });
    expect(JSON.parse(line).err.stack).toContain("exchange failed");
  });

  it("censors a child logger's bindings, top level and one object down", () => {
    const line = lineOf((logger) =>
      logger.child({ access_token: TOKEN, partner: { secret_key: SECRET } }).info("bound"),
    );
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(TOKEN);
    expect(JSON.parse(line)).toMatchObject({
      access_token: "[redacted]",
      partner: { secret_key: "[redacted]" },
    });
  });

  it("still censors a request's authorization header and body, should a line carry them raw", () => {
    const line = lineOf((logger) =>
      logger.info(
        { req: { headers: { authorization: `Bearer ${TOKEN}` }, body: { secret_key: SECRET } } },
        "raw",
      ),
    );
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(TOKEN);
  });
});
