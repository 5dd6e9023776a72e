import { describe, expect, it } from "vitest";
import { crossSiteRefusal, hostAllowed, hostName } from "./request-origin.js";

describe("the console's Host check", () => {
  const names = new Set(["console.example.com"]);

  it("answers IP addresses, localhost and the listed names, on any port", () => {
    for (const host of [
      "127.0.0.1:8081",
      "127.0.0.1",
      "localhost:8081",
      "LOCALHOST",
      "[::1]:8081",
      "10.0.0.7:8081",
      "console.example.com",
      "Console.Example.com:443",
    ]) {
      expect(hostAllowed(host, names), host).toBe(true);
    }
  });

  it("refuses any other name (a DNS-rebinding page's) and a missing Host", () => {
    for (const host of [
      "evil.example:8081",
      "127.0.0.1.nip.io:8081",
      "localhost.evil.example",
      "",
      undefined,
    ]) {
      expect(hostAllowed(host, names), String(host)).toBe(false);
    }
  });

  it("reads the name out of a Host header", () => {
    expect(hostName("[::1]:8081")).toBe("::1");
    expect(hostName("Example.com:80")).toBe("example.com");
  });
});

describe("the console's cross-site check", () => {
  const post = { method: "POST", host: "127.0.0.1:8081", origin: undefined, secFetchSite: undefined };

  it("lets safe methods, same-origin browsers and non-browser clients through", () => {
    expect(crossSiteRefusal({ ...post, method: "GET", origin: "https://evil.example" })).toBeNull();
    expect(
      crossSiteRefusal({ ...post, secFetchSite: "same-origin", origin: "http://127.0.0.1:8081" }),
    ).toBeNull();
    expect(crossSiteRefusal({ ...post, secFetchSite: "none" })).toBeNull();
    expect(crossSiteRefusal({ ...post, origin: "http://127.0.0.1:8081" })).toBeNull();
    expect(crossSiteRefusal(post)).toBeNull();
  });

  it("refuses another site, a sibling port, an opaque origin and a same-site sibling", () => {
    expect(crossSiteRefusal({ ...post, secFetchSite: "cross-site" })).toMatch(/cross-site/);
    expect(crossSiteRefusal({ ...post, secFetchSite: "same-site" })).toMatch(/same-site/);
    expect(crossSiteRefusal({ ...post, origin: "https://evil.example" })).toMatch(/not this console/);
    expect(crossSiteRefusal({ ...post, origin: "http://127.0.0.1:8080" })).toMatch(/not this console/);
    expect(crossSiteRefusal({ ...post, origin: "null" })).toMatch(/not a URL/);
    expect(crossSiteRefusal({ ...post, method: "DELETE", origin: "https://evil.example" })).not.toBeNull();
  });
});
