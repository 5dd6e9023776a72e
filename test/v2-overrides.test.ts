import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ApiError as ClientApiError, PricingClient } from "@pricing/client";
import { addDays } from "@pricing/engine";
import { companyToday, importCompanyData } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliWithEnv } from "./http-harness.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

/**
 * DESIGN §11 through the real server on a SQLite file: prices in JPY (0 decimals), KWD (3) and EUR with a .99
 * ending, `lowest_price_30d`, and partner overrides (pins, narrowings, their refusals, their 404s, recompute).
 */
const V2 = "/public/v1/v2";
const COMPANY = "printshop";
const OTHER = "elsewhere";
let h: V2Harness;
let token: string;
let otherToken: string;
let keys: { access_key: string; secret_key: string };
let today: string;

interface Item {
  product_id: string;
  date: string;
  price: number;
  currency: string;
  source: string;
  model_id: string | null;
  override_id: string | null;
  lowest_price_30d: number | null;
  explanation?: { binding: string | null };
}

async function csv(name: string, lines: string[]): Promise<string> {
  const file = join(h.dataDir, name);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

async function compute(): Promise<Item[]> {
  const res = await h.post(`${V2}/recommendations/compute`, token, {
    company_id: COMPANY,
    dry_run: true,
    explain: true,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { recommendations: Item[] }).recommendations;
}

async function post(body: unknown, as = token, query = ""): Promise<Response> {
  return h.post(`${V2}/overrides${query}`, as, body);
}

function del(id: string, company: string, as = token): Promise<Response> {
  return fetch(`${h.url}${V2}/overrides/${id}?company_id=${company}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${as}` },
  });
}

async function errorOf(res: Response): Promise<[number, string, string]> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return [res.status, body.error.code, body.error.message];
}

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z");
  today = companyToday(h.now(), "UTC");
  for (const id of [COMPANY, OTHER]) {
    await h.ctx.repositories.companies.create({ company_id: id, name: id, timezone: "UTC", currency: "EUR" });
  }
  const products = await csv("products.csv", [
    "product_id,name,currency,base_price,max_daily_change,price_endings",
    "eu-1,Mug,EUR,9.99,,.99",
    "jp-1,Tea,JPY,1980,0.1,",
    "kw-1,Dates,KWD,2.345,,",
  ]);
  const sales = ["date,product_id,price,units_sold"];
  for (let d = 40; d >= 1; d--) {
    const date = addDays(today, -d);
    sales.push(`${date},eu-1,${d % 2 === 0 ? "9.99" : "10.99"},${5 + (d % 4)}`);
    sales.push(`${date},jp-1,${d % 3 === 0 ? 1821 : 1980},${8 + (d % 5)}`);
    sales.push(`${date},kw-1,${d % 2 === 0 ? "2.345" : "2.5"},${4 + (d % 3)}`);
  }
  const salesFile = await csv("sales.csv", sales);
  await importCompanyData(h.ctx.db, h.ctx.clock, { companyId: COMPANY, productsFile: products, salesFile });
  const other = await csv("other.csv", ["product_id,name,currency,base_price", "x-1,Pen,EUR,3"]);
  await importCompanyData(h.ctx.db, h.ctx.clock, { companyId: OTHER, productsFile: other });
  keys = await h.partner([COMPANY]);
  token = await h.token(keys);
  otherToken = await h.token(await h.partner([OTHER]));
});

afterAll(async () => {
  await h?.destroy();
});

describe("printable prices through the API", () => {
  it("prices JPY in whole yen, KWD to the fils (3 decimals), EUR on its .99 ending, each with lowest_price_30d", async () => {
    const items = await compute();
    const of = (id: string) => items.filter((i) => i.product_id === id);
    expect(of("jp-1").length).toBeGreaterThan(0);
    for (const i of of("jp-1")) expect(Number.isInteger(i.price)).toBe(true);
    for (const i of of("kw-1"))
      expect(Math.abs(i.price * 1000 - Math.round(i.price * 1000))).toBeLessThan(1e-6);
    expect(of("kw-1").some((i) => Math.round(i.price * 1000) % 10 !== 0)).toBe(true);
    for (const i of of("eu-1")) expect(Math.round(i.price * 100) % 100).toBe(99);
    // The first day looks back on the history: its lowest prices were 1821 yen, 9.99 EUR and 2.345 KWD.
    const first = new Map(
      items.filter((i) => i.date === today).map((i) => [i.product_id, i.lowest_price_30d]),
    );
    expect(Object.fromEntries(first)).toEqual({ "eu-1": 9.99, "jp-1": 1821, "kw-1": 2.345 });
  });
});

describe("overrides", () => {
  let pinId = "";

  it("shows a pin in the next compute and a persisted run's read as source override; a narrowing as binding override", async () => {
    const res = await post({
      company_id: COMPANY,
      overrides: [
        {
          product_id: "jp-1",
          start_date: addDays(today, 1),
          end_date: addDays(today, 2),
          price: 2480,
          note: "flyer",
        },
        { product_id: "kw-1", start_date: addDays(today, 3), end_date: addDays(today, 5), max_price: 1.995 },
      ],
    });
    expect(res.status).toBe(200);
    const created = (await res.json()) as {
      overrides: { override_id: string; price: number | null }[];
      run_id: null;
    };
    expect(created.run_id).toBeNull();
    expect(created.overrides.map((o) => o.price)).toEqual([2480, null]);
    pinId = created.overrides[0]?.override_id ?? "";
    const narrowId = created.overrides[1]?.override_id;
    const items = await compute();
    const pinned = items.filter((i) => i.override_id === pinId);
    expect(pinned.map((i) => [i.date, i.price, i.source, i.model_id])).toEqual([
      [addDays(today, 1), 2480, "override", null],
      [addDays(today, 2), 2480, "override", null],
    ]);
    const narrowed = items.filter((i) => i.override_id === narrowId);
    expect(narrowed).toHaveLength(3);
    for (const i of narrowed) {
      expect(i.source).not.toBe("override");
      expect(i.price).toBeLessThanOrEqual(1.995);
    }
    expect(narrowed[0]?.explanation?.binding).toBe("override");
    expect(items.filter((i) => i.override_id === null).length).toBe(items.length - 5);

    const listed = await h.get(`${V2}/overrides?company_id=${COMPANY}&product_id=jp-1`, token);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({
      company_id: COMPANY,
      total: 1,
      overrides: [{ override_id: pinId, note: "flyer" }],
    });
  });

  it("recompute=true persists a run that the read shows with the pin, and records recommendations.updated", async () => {
    const res = await post(
      {
        company_id: COMPANY,
        product_id: "eu-1",
        start_date: addDays(today, 4),
        end_date: addDays(today, 4),
        price: 7.99,
      },
      token,
      "?recompute=true",
    );
    expect(res.status).toBe(200);
    const { run_id: runId } = (await res.json()) as { run_id: string };
    expect(runId).toMatch(/^run_/);
    const read = await h.get(
      `${V2}/recommendations?company_id=${COMPANY}&product_id=eu-1&start_date=${addDays(today, 4)}&end_date=${addDays(today, 4)}`,
      token,
    );
    const body = (await read.json()) as { run: { run_id: string }; recommendations: Item[] };
    expect(body.run.run_id).toBe(runId);
    expect(body.recommendations.map((i) => [i.price, i.source, typeof i.override_id])).toEqual([
      [7.99, "override", "string"],
    ]);
    const event = await h.ctx.db
      .selectFrom("webhook_events")
      .select("type")
      .where("dedupe_key", "=", `run:${runId}`)
      .executeTakeFirst();
    expect(event?.type).toBe("recommendations.updated");
  });

  it("refuses overlap, past dates, unprintable and outside-guardrail pins with their codes, creating nothing", async () => {
    const before = (await (await h.get(`${V2}/overrides?company_id=${COMPANY}`, token)).json()) as {
      total: number;
    };
    const pin = (over: Record<string, unknown>) => ({
      company_id: COMPANY,
      product_id: "eu-1",
      start_date: addDays(today, 8),
      end_date: addDays(today, 9),
      price: 8.99,
      ...over,
    });
    expect(
      (await errorOf(await post(pin({ product_id: "jp-1", start_date: addDays(today, 2), price: 1999 }))))[1],
    ).toBe("override_overlap");
    expect(await errorOf(await post(pin({ start_date: addDays(today, -1) })))).toEqual([
      400,
      "validation_error",
      `start_date must not be before the company's today (${today}).`,
    ]);
    expect((await errorOf(await post(pin({ price: 8.5 }))))[0]).toBe(422);
    expect((await errorOf(await post(pin({ price: 8.5 }))))[1]).toBe("override_not_printable");
    expect((await errorOf(await post(pin({ price: 30.99 }))))[1]).toBe("override_outside_guardrails");
    expect(
      (
        await errorOf(await post(pin({ product_id: "jp-1", start_date: addDays(today, 9), price: 1980.5 })))
      )[1],
    ).toBe("override_not_printable");
    // All or nothing: a valid first item is not kept when the second is refused.
    const bulk = await post({
      company_id: COMPANY,
      overrides: [
        { product_id: "kw-1", start_date: addDays(today, 10), end_date: addDays(today, 10), price: 2.3 },
        { product_id: "kw-1", start_date: addDays(today, 10), end_date: addDays(today, 11), price: 2.4 },
      ],
    });
    expect(await errorOf(bulk)).toEqual([
      409,
      "override_overlap",
      "Two overrides of product kw-1 in this request overlap.",
    ]);
    const after = (await (await h.get(`${V2}/overrides?company_id=${COMPANY}`, token)).json()) as {
      total: number;
    };
    expect(after.total).toBe(before.total);
  });

  it("answers another partner's company or override id with the same 404 as an unknown one", async () => {
    const unknownCompany = await post({
      company_id: "nope",
      product_id: "x",
      start_date: today,
      end_date: today,
      price: 1,
    });
    const foreignCompany = await post(
      { company_id: OTHER, product_id: "x-1", start_date: today, end_date: today, price: 2.99 },
      token,
    );
    const [a, b] = [await unknownCompany.json(), await foreignCompany.json()] as {
      error: { code: string; message: string };
    }[];
    expect([unknownCompany.status, a?.error.code, a?.error.message]).toEqual([
      404,
      "company_not_found",
      b?.error.message,
    ]);
    expect(foreignCompany.status).toBe(404);

    const foreignId = await del(pinId, OTHER, otherToken);
    const unknownId = await del("ovr_unknown", OTHER, otherToken);
    const [c, d] = [await errorOf(foreignId), await errorOf(unknownId)];
    expect(c).toEqual([404, "override_not_found", "Override not found."]);
    expect(d).toEqual(c);
    // Removed once; the second DELETE is a 404, and the next compute no longer applies the pin.
    expect((await del(pinId, COMPANY)).status).toBe(204);
    expect((await errorOf(await del(pinId, COMPANY)))[1]).toBe("override_not_found");
    expect((await compute()).some((i) => i.override_id === pinId)).toBe(false);
  });
});

describe("the client's override methods", () => {
  it("create, list and delete an override with typed answers and errors", async () => {
    const client = new PricingClient({
      baseUrl: h.url,
      accessKey: keys.access_key,
      secretKey: keys.secret_key,
    });
    const created = await client.createOverrides(
      {
        company_id: COMPANY,
        product_id: "kw-1",
        start_date: addDays(today, 12),
        end_date: addDays(today, 13),
        min_price: 2.2,
      },
      { recompute: true },
    );
    const id = created.overrides[0]?.override_id ?? "";
    expect(created.run_id).toMatch(/^run_/);
    const listed = await client.listOverrides({ company_id: COMPANY, product_id: "kw-1" });
    expect(listed.overrides.map((o) => o.override_id)).toContain(id);
    await expect(client.deleteOverride(id, COMPANY)).resolves.toBeUndefined();
    const again = await client.deleteOverride(id, COMPANY).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ClientApiError);
    expect((again as ClientApiError).code).toBe("override_not_found");
  });
});

describe("pricing override add|list|remove", () => {
  it("adds, lists and removes an override through the same service, with the API's refusals", async () => {
    const pricing = (...args: string[]) => cliWithEnv({}, h.dataDir, "override", ...args);
    // The CLI runs on the real clock, not the harness's: its dates are from the real today.
    const today = companyToday(new Date(), "UTC");
    const added = await pricing(
      "add",
      "--company",
      COMPANY,
      "--product",
      "jp-1",
      "--from",
      addDays(today, 20),
      "--to",
      addDays(today, 21),
      "--price",
      "1780",
      "--note",
      "clearance",
    );
    expect(added.code).toBe(0);
    const id =
      (JSON.parse(added.stdout) as { overrides: { override_id: string }[] }).overrides[0]?.override_id ?? "";
    const listed = await pricing("list", "--company", COMPANY, "--product", "jp-1");
    expect(JSON.parse(listed.stdout)).toMatchObject({
      overrides: expect.arrayContaining([
        expect.objectContaining({ override_id: id, price: 1780, note: "clearance" }),
      ]),
    });
    const overlap = await pricing(
      "add",
      "--company",
      COMPANY,
      "--product",
      "jp-1",
      "--from",
      addDays(today, 21),
      "--price",
      "1980",
    );
    expect(overlap.code).not.toBe(0);
    expect(overlap.stderr).toContain("overlaps override");
    const unprintable = await pricing(
      "add",
      "--company",
      COMPANY,
      "--product",
      "eu-1",
      "--from",
      addDays(today, 22),
      "--price",
      "9.5",
    );
    expect(unprintable.code).not.toBe(0);
    expect(unprintable.stderr).toContain("not a printable EUR price ending in .99");
    expect((await pricing("remove", "--company", COMPANY, "--id", id)).code).toBe(0);
    expect((await pricing("remove", "--company", COMPANY, "--id", id)).code).not.toBe(0);
  });
});
