import { request } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

// Issue 28 item 6: a 202's Location comes from PRICING_PUBLIC_URL (default the listening address), never from the
// Host header the client sent, and its Idempotency-Key replay says the same. The real server, real sockets.

const harnesses: V2Harness[] = [];

afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.destroy()));
});

/** POST with a Host header of the caller's choosing (fetch would not send one). */
function post(url: string, path: string, headers: Record<string, string>, body: unknown) {
  return new Promise<{ status: number; location: string | undefined; replayed: string | undefined }>(
    (resolve, reject) => {
      const req = request(
        `${url}${path}`,
        { method: "POST", headers: { "content-type": "application/json", ...headers } },
        (res) => {
          res.resume();
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              replayed: res.headers["idempotent-replayed"] as string | undefined,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    },
  );
}

async function serverWith(publicUrl?: string) {
  const h = await startV2Harness("2026-03-10T03:00:00Z", TEST_SETTINGS, publicUrl ? { publicUrl } : {});
  harnesses.push(h);
  await h.seedCompany("acme");
  const token = await h.token(await h.partner(["acme"]));
  return { h, headers: { authorization: `Bearer ${token}`, host: "evil.example", prefer: "respond-async" } };
}

describe("absolute URLs", () => {
  it("begin with PRICING_PUBLIC_URL, never with the client's Host, replay included", async () => {
    const { h, headers } = await serverWith("https://pricing.example.com/api/");
    const keyed = { ...headers, "idempotency-key": "train-once" };
    const first = await post(h.url, "/public/v1/v2/model/train", keyed, { company_id: "acme" });
    expect(first.status).toBe(202);
    expect(first.location).toMatch(
      /^https:\/\/pricing\.example\.com\/api\/public\/v1\/v2\/operations\/op_\w+$/,
    );
    const replay = await post(h.url, "/public/v1/v2/model/train", keyed, { company_id: "acme" });
    expect(replay.replayed).toBe("true");
    expect(replay.location).toBe(first.location);
  }, 120_000);

  it("begin with the listening address when no public URL is set", async () => {
    const { h, headers } = await serverWith();
    const res = await post(h.url, "/v2/model/train", headers, { company_id: "acme" });
    expect(res.status).toBe(202);
    expect(res.location).toMatch(new RegExp(`^${h.url}/v2/operations/op_\\w+$`));
  }, 120_000);
});
