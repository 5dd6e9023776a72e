import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainModel } from "../training/train-model.js";
import {
  COMPANY,
  CONSOLE_TOKEN,
  type ConsoleTest,
  login,
  openConsoleTest,
  sameOrigin,
} from "./test-console.js";

/** What no console answer may contain, whatever secret it is: partner secret keys, webhook secrets, hex hashes. */
const SECRET_SHAPES = [/sk_[A-Za-z0-9_-]{20,}/, /whsec_/, /\b[0-9a-f]{64}\b/];

describe("what the console renders", () => {
  let t: ConsoleTest;
  let cookie: string;
  const answers: { what: string; text: string }[] = [];

  beforeAll(async () => {
    t = await openConsoleTest({ consoleToken: CONSOLE_TOKEN });
    await trainModel(t.ctx, { company_id: COMPANY, auto_approve: true }, { by: "operator" });
    await trainModel(t.ctx, { company_id: COMPANY, auto_approve: false }, { by: "operator" });
    cookie = await login(t.app, "alice", CONSOLE_TOKEN);
    const products = (await t.ctx.repositories.products.listByCompany(COMPANY)).map((p) => p.product_id);
    const get = async (url: string, headers: Record<string, string> = { ...sameOrigin(), cookie }) => {
      const res = await t.app.inject({ url, headers });
      answers.push({
        what: `GET ${url} ${res.statusCode}`,
        text: `${JSON.stringify(res.headers)}\n${res.body}`,
      });
      return res;
    };
    // Every page and JSON answer the console has, for every product where a route names one.
    const pages = t.routes.filter((r) => r.method === "GET" && !r.url.startsWith("/assets/"));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const route of pages) {
      const urls = route.url.includes(":product_id")
        ? products.map((p) => route.url.replace(":product_id", p))
        : [
            route.url,
            ...(route.url === "/companies/:company_id"
              ? products.map((p) => `${route.url}?product=${p}`)
              : []),
          ];
      for (const url of urls) {
        const res = await get(url.replace(":company_id", COMPANY));
        expect(res.statusCode, url).toBe(200);
      }
    }
    // The answers of every mutation, and the errors: login failures, 401, 403, 404, 409.
    const post = async (
      url: string,
      payload: unknown,
      headers: Record<string, string> = { ...sameOrigin(), cookie },
    ) => {
      const res = await t.app.inject({ method: "POST", url, headers, payload: payload as string });
      answers.push({
        what: `POST ${url} ${res.statusCode}`,
        text: `${JSON.stringify(res.headers)}\n${res.body}`,
      });
      return res;
    };
    const latest = (await t.ctx.policies.store.getSlots(COMPANY)).latest?.model_id ?? "";
    expect((await post(`/api/companies/${COMPANY}/settings`, { exploration: "free" })).statusCode).toBe(200);
    expect(
      (await post(`/api/companies/${COMPANY}/model/promote`, { model_id: "mdl_stale" })).statusCode,
    ).toBe(409);
    expect((await post(`/api/companies/${COMPANY}/model/promote`, { model_id: latest })).statusCode).toBe(
      200,
    );
    expect(
      (
        await post(`/api/companies/${COMPANY}/model/rollback`, {
          model_id: "mdl_x",
          expected_approved_model_id: null,
        })
      ).statusCode,
    ).toBe(409);
    const form = { ...sameOrigin(), "content-type": "application/x-www-form-urlencoded" };
    expect((await post("/login", `operator=eve&token=${"y".repeat(40)}`, form)).statusCode).toBe(401);
    expect((await get("/api/companies", sameOrigin())).statusCode).toBe(401);
    expect((await get("/api/companies", { host: "evil.example", cookie })).statusCode).toBe(403);
    expect((await get("/companies/nobody")).statusCode).toBe(404);
    expect((await get("/api/companies/nobody/model")).statusCode).toBe(404);
    expect((await get("/login")).statusCode).toBe(200);
    await get(`/companies/${COMPANY}`);
    await get(`/companies/${COMPANY}/model`);
  });
  afterAll(async () => t?.close());

  it("holds no secret of the data dir or the database, nor the console token or a session", () => {
    expect(t.secrets.length).toBeGreaterThanOrEqual(6);
    const session = cookie.split("=")[1] ?? "";
    for (const { what, text } of answers) {
      for (const secret of [...t.secrets, session])
        expect(text.includes(secret), `${what} shows a secret`).toBe(false);
      for (const shape of SECRET_SHAPES) expect(text, what).not.toMatch(shape);
    }
  });

  it("did render the data around them (the walk reached the pages)", () => {
    const all = answers.map((a) => a.text).join("\n");
    expect(all).toContain(COMPANY);
    expect(all).toContain("console:alice");
    expect(all).toMatch(/mdl_[0-9A-Z]{26}/);
    expect(all).toContain("price_path");
  });
});
