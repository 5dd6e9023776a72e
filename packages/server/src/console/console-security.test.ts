import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COMPANY,
  CONSOLE_TOKEN,
  type ConsoleTest,
  login,
  openConsoleTest,
  sameOrigin,
} from "./test-console.js";

const PAGES = ["/", `/companies/${COMPANY}`, `/companies/${COMPANY}/model`, "/batches"];
const API_GETS = [
  "/api/companies",
  `/api/companies/${COMPANY}`,
  `/api/companies/${COMPANY}/model`,
  `/api/companies/${COMPANY}/run.csv`,
  `/api/companies/${COMPANY}/products/sku-1/demand-curve`,
  "/api/batches",
];
const SETTINGS = `/api/companies/${COMPANY}/settings`;

describe("the console with a token (as beyond loopback)", () => {
  let t: ConsoleTest;
  let cookie: string;

  beforeAll(async () => {
    t = await openConsoleTest({ consoleToken: CONSOLE_TOKEN, consoleHostnames: ["console.example.com"] });
    cookie = await login(t.app, "alice", CONSOLE_TOKEN);
  });
  afterAll(async () => t?.close());

  it("sends every page to the login form and answers every /api/ call 401 without credentials, never data", async () => {
    for (const url of PAGES) {
      const res = await t.app.inject({ url, headers: sameOrigin() });
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(url)}`);
      expect(res.body).toBe("");
    }
    for (const url of API_GETS) {
      const res = await t.app.inject({ url, headers: sameOrigin() });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().error.code).toBe("invalid_token");
    }
    const post = await t.app.inject({
      method: "POST",
      url: SETTINGS,
      headers: sameOrigin(),
      payload: { force_rule: true },
    });
    expect(post.statusCode).toBe(401);
    expect((await t.ctx.repositories.companies.get(COMPANY))?.force_rule).toBe(0);
  });

  it("logs in with the token and a name into an HttpOnly, SameSite=Strict, expiring cookie", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/login",
      headers: { ...sameOrigin(), "content-type": "application/x-www-form-urlencoded" },
      payload: `operator=bob&token=${CONSOLE_TOKEN}&next=${encodeURIComponent(`/companies/${COMPANY}`)}`,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/companies/${COMPANY}`);
    const set = String(res.headers["set-cookie"]);
    expect(set).toMatch(/^pricing_console=[A-Za-z0-9_-]{43}; /);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Strict");
    expect(set).toContain("Max-Age=28800");
    expect(set).toContain("Path=/");
    for (const url of [...PAGES, ...API_GETS]) {
      const page = await t.app.inject({ url, headers: { ...sameOrigin(), cookie } });
      expect(page.statusCode, url).toBe(200);
    }
  });

  it("refuses a wrong token, a missing one and a name that `by` cannot carry", async () => {
    const attempt = (body: string) =>
      t.app.inject({
        method: "POST",
        url: "/login",
        headers: { ...sameOrigin(), "content-type": "application/x-www-form-urlencoded" },
        payload: body,
      });
    const wrong = await attempt(`operator=mallory&token=${"x".repeat(40)}`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    expect(wrong.body).toContain("That token is not this console&#39;s.");
    expect((await attempt("operator=mallory")).statusCode).toBe(401);
    const badName = await attempt(`operator=${encodeURIComponent("<script>")}&token=${CONSOLE_TOKEN}`);
    expect(badName.statusCode).toBe(400);
    expect(badName.headers["set-cookie"]).toBeUndefined();
  });

  it("sends a login only to a path of its own", async () => {
    for (const next of [
      "//evil.example/x",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
    ]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/login",
        headers: { ...sameOrigin(), "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ operator: "alice", token: CONSOLE_TOKEN, next }).toString(),
      });
      expect(res.headers.location, next).toBe("/");
    }
  });

  it("takes the bearer token with an operator name, and nothing less", async () => {
    const bearer = (token: string, name?: string) =>
      t.app.inject({
        url: "/api/companies",
        headers: {
          host: "127.0.0.1:8081",
          authorization: `Bearer ${token}`,
          ...(name ? { "x-operator-name": name } : {}),
        },
      });
    expect((await bearer(CONSOLE_TOKEN, "ci-bot")).statusCode).toBe(200);
    expect((await bearer(CONSOLE_TOKEN)).statusCode).toBe(401);
    expect((await bearer(`${CONSOLE_TOKEN}x`, "ci-bot")).statusCode).toBe(401);
    const change = await t.app.inject({
      method: "POST",
      url: SETTINGS,
      headers: {
        host: "127.0.0.1:8081",
        authorization: `Bearer ${CONSOLE_TOKEN}`,
        "x-operator-name": "ci-bot",
      },
      payload: { exploration: "off" },
    });
    expect(change.statusCode).toBe(200);
    expect(change.json().events).toEqual([
      expect.objectContaining({ field: "exploration", by: "console:ci-bot" }),
    ]);
  });

  it("refuses a host it does not answer to (DNS rebinding), even with a session", async () => {
    for (const host of ["evil.example:8081", "127.0.0.1.evil.example"]) {
      const res = await t.app.inject({ url: "/api/companies", headers: { host, cookie } });
      expect(res.statusCode, host).toBe(403);
      expect(res.json().error.code).toBe("cross_origin_refused");
      const page = await t.app.inject({ url: "/", headers: { host, cookie } });
      expect(page.statusCode).toBe(403);
      expect(page.body).not.toContain("acme");
    }
    for (const host of ["console.example.com", "localhost:8081", "[::1]:8081", "10.1.2.3:8081"]) {
      expect(
        (await t.app.inject({ url: "/api/companies", headers: { host, cookie } })).statusCode,
        host,
      ).toBe(200);
    }
  });

  it("refuses a state-changing request from another site, even with a session, changing nothing", async () => {
    const before = await t.ctx.repositories.companies.get(COMPANY);
    const attempts: Record<string, string>[] = [
      { host: "127.0.0.1:8081", origin: "https://evil.example" },
      { host: "127.0.0.1:8081", origin: "http://127.0.0.1:8080" },
      { host: "127.0.0.1:8081", origin: "null" },
      { host: "127.0.0.1:8081", "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      { host: "127.0.0.1:8081", "sec-fetch-site": "same-site" },
    ];
    for (const headers of attempts) {
      const res = await t.app.inject({
        method: "POST",
        url: SETTINGS,
        headers: { ...headers, cookie },
        payload: { force_rule: true },
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.code).toBe("cross_origin_refused");
    }
    const loginCsrf = await t.app.inject({
      method: "POST",
      url: "/login",
      headers: {
        host: "127.0.0.1:8081",
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: `operator=mallory&token=${CONSOLE_TOKEN}`,
    });
    expect(loginCsrf.statusCode).toBe(403);
    expect(loginCsrf.headers["set-cookie"]).toBeUndefined();
    expect(await t.ctx.repositories.companies.get(COMPANY)).toEqual(before);
  });

  it("takes changes as JSON only: a form another site could post is 415", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: SETTINGS,
      headers: { ...sameOrigin(), cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: "force_rule=true",
    });
    expect(res.statusCode).toBe(415);
  });

  it("ends the session at logout and at its expiry", async () => {
    const mine = await login(t.app, "carol", CONSOLE_TOKEN);
    const out = await t.app.inject({
      method: "POST",
      url: "/logout",
      headers: { ...sameOrigin(), cookie: mine },
    });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers["set-cookie"])).toMatch(/^pricing_console=; .*Max-Age=0/);
    expect(
      (await t.app.inject({ url: "/api/companies", headers: { ...sameOrigin(), cookie: mine } })).statusCode,
    ).toBe(401);
    const later = await login(t.app, "dave", CONSOLE_TOKEN);
    t.setNow("2026-03-10T16:59:00Z");
    expect(
      (await t.app.inject({ url: "/api/companies", headers: { ...sameOrigin(), cookie: later } })).statusCode,
    ).toBe(200);
    t.setNow("2026-03-10T17:00:01Z");
    expect(
      (await t.app.inject({ url: "/api/companies", headers: { ...sameOrigin(), cookie: later } })).statusCode,
    ).toBe(401);
    t.setNow("2026-03-10T09:00:00Z");
  });

  it("sends its pages with a policy that allows no inline script, no other origin and no framing", async () => {
    const res = await t.app.inject({ url: `/companies/${COMPANY}`, headers: { ...sameOrigin(), cookie } });
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["cache-control"]).toBe("no-store");
    // Only the inert data block: no executable inline script, no inline style.
    const scripts = [...res.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1] ?? "");
    expect(scripts.filter((attrs) => !/\bsrc=|type="application\/json"/.test(attrs))).toEqual([]);
    expect(res.body).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    // The company's name is text, never markup.
    expect(res.body).toContain("Acme &lt;b&gt;&amp; Co&lt;/b&gt;");
  });
});

describe("the console on loopback without a token", () => {
  let t: ConsoleTest;

  beforeAll(async () => {
    t = await openConsoleTest();
  });
  afterAll(async () => t?.close());

  it("logs in with a name alone, still behind the Host and cross-site checks", async () => {
    const cookie = await login(t.app, "alice");
    expect(
      (await t.app.inject({ url: "/api/companies", headers: { ...sameOrigin(), cookie } })).statusCode,
    ).toBe(200);
    expect((await t.app.inject({ url: "/api/companies", headers: sameOrigin() })).statusCode).toBe(401);
    // No token is configured, so a bearer header proves nothing.
    const bearer = await t.app.inject({
      url: "/api/companies",
      headers: { host: "127.0.0.1:8081", authorization: "Bearer anything", "x-operator-name": "x" },
    });
    expect(bearer.statusCode).toBe(401);
    const rebinding = await t.app.inject({
      url: "/api/companies",
      headers: { host: "evil.example:8081", cookie },
    });
    expect(rebinding.statusCode).toBe(403);
    const crossSite = await t.app.inject({
      method: "POST",
      url: SETTINGS,
      headers: { host: "127.0.0.1:8081", origin: "https://evil.example", cookie },
      payload: { force_rule: true },
    });
    expect(crossSite.statusCode).toBe(403);
  });
});
