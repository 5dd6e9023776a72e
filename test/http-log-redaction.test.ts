import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Partner, startHarness } from "./http-harness.js";

let h: Harness;
let partner: Partner;

beforeAll(async () => {
  h = await startHarness();
  partner = await h.partnerWithCompany("redact-co");
});
afterAll(async () => h.destroy());

/** The log lines of one request, found by its id. */
function linesOf(requestId: string): Record<string, unknown>[] {
  return h.logs
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.request_id === requestId);
}

describe("request logs", () => {
  it("never print a secret or token sent in a query string, whatever the route; the API's own parameters stay", async () => {
    const token = await h.token(partner);
    const secrets = [partner.secret_key, token, "s3cr3t-pa55w0rd-in-a-typo"];
    const targets = [
      `/public/v1/auth/token?secret_key=${encodeURIComponent(partner.secret_key)}&access_key=${partner.access_key}`,
      `/public/v1/v2/model?company_id=${partner.company_id}&access_token=${token}`,
      `/v2/runs?company_id=${partner.company_id}&limit=5&secret%5Fkey=${encodeURIComponent(partner.secret_key)}`,
      `/no/such/route?access_token=${token}&passwrd=s3cr3t-pa55w0rd-in-a-typo`,
      `/healthz?token=${token}`,
    ];
    for (const url of targets) {
      const res = await h.app.inject({
        method: url.includes("auth/token") ? "POST" : "GET",
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(url.includes("auth/token") ? { payload: {} } : {}),
      });
      const lines = linesOf(String(res.headers["x-request-id"]));
      const completed = lines.find((l) => l.msg === "request completed") as
        | { req: { url: string } }
        | undefined;
      expect(completed, url).toBeDefined();
      const text = JSON.stringify(lines);
      for (const secret of secrets) expect(text, url).not.toContain(secret);
      for (const line of lines.filter((l) => l.req !== undefined)) {
        const logged = (line as { req: { url: string } }).req.url;
        expect(logged, url).toContain("=[redacted]");
        expect(logged.split("?")[0], url).toBe(url.split("?")[0]);
      }
      expect(completed?.req.url, url).toContain("=[redacted]");
    }
    const runs = linesOf(
      String(
        (
          await h.app.inject({
            url: `/v2/runs?company_id=${partner.company_id}&limit=5&access_token=${token}`,
            headers: { authorization: `Bearer ${token}` },
          })
        ).headers["x-request-id"],
      ),
    );
    // One request line per read, written when it is answered, with the request in it (the error handler's own
    // line about the refused parameter stays).
    expect(runs.map((l) => l.msg).filter((m) => m !== "request rejected")).toEqual(["request completed"]);
    expect(runs.at(-1)).toMatchObject({
      req: {
        method: "GET",
        url: `/v2/runs?company_id=${partner.company_id}&limit=5&access_token=[redacted]`,
      },
      res: { statusCode: expect.any(Number) },
      responseTime: expect.any(Number),
    });
  });

  it("logs when a write starts as well as when it ends: a training may run for minutes", async () => {
    const res = await h.app.inject({ method: "POST", url: "/public/v1/auth/token", payload: {} });
    const lines = linesOf(String(res.headers["x-request-id"]));
    expect(lines.map((l) => l.msg).filter((m) => m !== "request rejected")).toEqual([
      "incoming request",
      "request completed",
    ]);
    expect(lines.at(-1)).toMatchObject({ req: { method: "POST" }, res: { statusCode: 400 } });
  });
});
