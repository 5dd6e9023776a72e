import type { LookupAddress } from "node:dns";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { sendWebhook } from "./send-webhook.js";
import { checkWebhookTarget, nonPublicReason, WebhookTargetError } from "./target-address.js";

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("nonPublicReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "linkLocal"],
    ["2002:c0a8:0101::1", "private"],
    ["::2", "reserved"],
    ["not-an-ip", "invalid"],
  ])("%s is %s", (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "%s is public",
    (address) => {
      expect(nonPublicReason(address)).toBeNull();
    },
  );
});

describe("checkWebhookTarget", () => {
  const publicOnly = { allowPrivate: false, resolve: resolvesTo("93.184.216.34") };

  it("accepts an https URL whose host resolves to public addresses only", async () => {
    const url = await checkWebhookTarget("https://hooks.example.com/pricing", publicOnly);
    expect(url.href).toBe("https://hooks.example.com/pricing");
  });

  it("refuses a host with any private address among its answers, IPv4 or IPv6", async () => {
    for (const answers of [
      ["93.184.216.34", "10.0.0.5"],
      ["2606:4700:4700::1111", "fd00::5"],
      ["2606:4700:4700::1111", "::ffff:192.168.0.1"],
    ]) {
      await expect(
        checkWebhookTarget("https://hooks.example.com/", {
          allowPrivate: false,
          resolve: resolvesTo(...answers),
        }),
      ).rejects.toThrow(WebhookTargetError);
    }
  });

  it("refuses IP literals on loopback, link-local and unique-local without resolving", async () => {
    const resolve = () => Promise.reject(new Error("must not resolve"));
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://[::1]/",
      "http://169.254.169.254/",
      "http://[fd00::1]/",
    ]) {
      await expect(checkWebhookTarget(url, { allowPrivate: false, resolve })).rejects.toThrow(/address/);
    }
  });

  it("refuses other schemes, credentials and fragments even when private targets are allowed", async () => {
    const allowed = { allowPrivate: true };
    await expect(checkWebhookTarget("ftp://example.com/", allowed)).rejects.toThrow(/http/);
    await expect(checkWebhookTarget("https://u:p@example.com/", allowed)).rejects.toThrow(/credentials/);
    await expect(checkWebhookTarget("https://example.com/#x", allowed)).rejects.toThrow(/fragment/);
    await expect(checkWebhookTarget("not a url", allowed)).rejects.toThrow(/not a URL/);
    expect((await checkWebhookTarget("http://127.0.0.1:9/", allowed)).host).toBe("127.0.0.1:9");
  });

  it("names the unresolvable host", async () => {
    const resolve = () => Promise.reject(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
    await expect(
      checkWebhookTarget("https://nowhere.invalid/", { allowPrivate: false, resolve }),
    ).rejects.toThrow("cannot resolve nowhere.invalid: ENOTFOUND");
  });
});

describe("sendWebhook's address check at delivery time", () => {
  it("refuses to connect when the name now resolves to a private address (DNS rebinding)", async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const attempt = (allowPrivate: boolean) =>
        sendWebhook({
          url: `http://rebound.example:${port}/hook`,
          headers: {},
          body: "{}",
          timeoutMs: 5_000,
          allowPrivate,
          resolve: resolvesTo("127.0.0.1"),
        });
      await expect(attempt(false)).rejects.toThrow(/loopback/);
      await expect(
        sendWebhook({
          url: `http://127.0.0.1:${port}/`,
          headers: {},
          body: "{}",
          timeoutMs: 5_000,
          allowPrivate: false,
        }),
      ).rejects.toThrow(/loopback/);
      expect(requests).toBe(0);
      // Allowed: the same target is reached (through the system resolver, since the name is only ours).
      const ok = await sendWebhook({
        url: `http://127.0.0.1:${port}/`,
        headers: {},
        body: "{}",
        timeoutMs: 5_000,
        allowPrivate: true,
      });
      expect(ok.status).toBe(200);
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("does not follow a redirect and times out a receiver that never answers", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/redirect") {
        res.writeHead(307, { location: "/elsewhere" });
        res.end();
      }
      // "/hang": never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const send = (path: string, timeoutMs = 5_000) =>
        sendWebhook({ url: `${base}${path}`, headers: {}, body: "{}", timeoutMs, allowPrivate: true });
      expect((await send("/redirect")).status).toBe(307);
      await expect(send("/hang", 200)).rejects.toThrow("no answer within 200 ms");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
