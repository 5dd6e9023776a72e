import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueCredentials } from "../auth/credentials.js";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { createFreshReadCache } from "./fresh-read-cache.js";

describe("fresh read cache (embedded database)", () => {
  let dir: string;
  let server: ServerContext;
  let cli: ServerContext;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pricing-fresh-read-"));
    // Two connections to one file, as a serving process and the operator CLI have.
    server = await createServerContext(loadConfig({}, { dataDir: dir }));
    cli = await createServerContext(loadConfig({}, { dataDir: dir }));
  });
  afterAll(async () => {
    await server?.close();
    await cli?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves repeated reads from memory and reloads after a commit by this or another connection", async () => {
    let loads = 0;
    const cache = createFreshReadCache<number>(server.db);
    const read = () => cache.get("k", async () => ++loads);
    expect([await read(), await read()]).toEqual([1, 1]);
    await cli.repositories.companies.create({
      company_id: "other-conn",
      name: "x",
      timezone: "UTC",
      currency: "EUR",
    });
    expect([await read(), await read()]).toEqual([2, 2]);
    await server.repositories.companies.create({
      company_id: "same-conn",
      name: "x",
      timezone: "UTC",
      currency: "EUR",
    });
    expect(await read()).toBe(3);
  });

  it("sees a disable and an unmapping made by another process on the next check", async () => {
    const partner = await server.repositories.partners.create("p", issueCredentials(server.pepper));
    await server.repositories.companies.create({
      company_id: "co",
      name: "co",
      timezone: "UTC",
      currency: "EUR",
    });
    await server.repositories.companies.map(partner.partner_id, "co");
    expect(await server.repositories.companies.isMapped(partner.partner_id, "co")).toBe(true);
    expect(await server.repositories.partners.acceptedTokenGeneration(partner.partner_id)).toBe(0);
    expect(await server.repositories.companies.isMapped(partner.partner_id, "co")).toBe(true);

    await cli.repositories.companies.unmap(partner.partner_id, "co");
    expect(await server.repositories.companies.isMapped(partner.partner_id, "co")).toBe(false);
    await cli.repositories.partners.setDisabled(partner.partner_id, true);
    expect(await server.repositories.partners.acceptedTokenGeneration(partner.partner_id)).toBeNull();
    await cli.repositories.partners.setDisabled(partner.partner_id, false);
    expect(await server.repositories.partners.acceptedTokenGeneration(partner.partner_id)).toBe(1);
    expect(await server.repositories.partners.acceptedTokenGeneration("ptr_unknown")).toBeNull();
  });
});
