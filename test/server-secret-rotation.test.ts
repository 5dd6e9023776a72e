import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, buildApp, keyRing, loadConfig } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliOk, decodeJwt } from "./http-harness.js";

// The embedded default's generated secret files, rotated as packages/server/README.md tells an operator to.

let dataDir: string;
let app: App | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-rotation-"));
});
afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function restart(): Promise<App> {
  await app?.close();
  app = await buildApp(loadConfig({}, { dataDir, logLevel: "silent" }));
  return app;
}

async function exchange(keys: { access_key: string; secret_key: string }) {
  const res = await (app as App).app.inject({
    method: "POST",
    url: "/public/v1/auth/token",
    payload: { access_key: keys.access_key, secret_key: keys.secret_key },
  });
  return { status: res.statusCode, token: res.statusCode === 200 ? (res.json().access_token as string) : "" };
}

/** 404 company_not_found means the token passed; 401 that it did not. */
async function authStatus(token: string): Promise<number> {
  const res = await (app as App).app.inject({
    url: "/public/v1/v2/model?company_id=nobody",
    headers: { authorization: `Bearer ${token}` },
  });
  return res.statusCode;
}

async function pepperIdOf(accessKey: string): Promise<string | null> {
  const row = await (app as App).ctx.db
    .selectFrom("key_pairs")
    .select("pepper_id")
    .where("access_key", "=", accessKey)
    .executeTakeFirstOrThrow();
  return row.pepper_id;
}

type Keys = { access_key: string; secret_key: string };

describe("rotating the server's own secrets", () => {
  it("a new JWT key and a new pepper leave issued tokens and keys valid; removing the old key ends its tokens", async () => {
    await restart();
    const partner = (await cliOk(dataDir, "partner", "create", "--name", "Old")) as unknown as Keys;
    const oldJwt = (await readFile(join(dataDir, "jwt-secret"), "utf8")).trim();
    const oldPepper = (await readFile(join(dataDir, "key-pepper"), "utf8")).trim();
    const oldPepperId = keyRing("pepper", [oldPepper]).current.id;
    expect(await pepperIdOf(partner.access_key)).toBe(oldPepperId);

    // A row stored before the column existed gets the current pepper's id at the next start.
    await (app as App).ctx.db.updateTable("key_pairs").set({ pepper_id: null }).execute();
    await restart();
    expect(await pepperIdOf(partner.access_key)).toBe(oldPepperId);
    const oldToken = (await exchange(partner)).token;
    expect(await authStatus(oldToken)).toBe(404);

    // Step 1: new keys above the old ones.
    const newJwt = "n".repeat(22) + oldJwt.slice(0, 22);
    const newPepper = "p".repeat(22) + oldPepper.slice(0, 22);
    await writeFile(join(dataDir, "jwt-secret"), `${newJwt}\n${oldJwt}\n`);
    await writeFile(join(dataDir, "key-pepper"), `${newPepper}\n${oldPepper}\n`);
    await restart();
    expect(await authStatus(oldToken)).toBe(404);
    const renewed = await exchange(partner);
    expect(renewed.status).toBe(200);
    expect(decodeJwt(renewed.token).header.kid).toBe(keyRing("kid", [newJwt]).current.id);
    const fresh = (await cliOk(dataDir, "partner", "create", "--name", "New")) as unknown as Keys;
    expect(await pepperIdOf(fresh.access_key)).toBe(keyRing("pepper", [newPepper]).current.id);
    expect((await exchange(fresh)).status).toBe(200);

    // Step 2, once the old tokens have expired: the old JWT key goes. The old pepper stays while hashes use it.
    await writeFile(join(dataDir, "jwt-secret"), `${newJwt}\n`);
    await restart();
    expect(await authStatus(oldToken)).toBe(401);
    expect(await authStatus(renewed.token)).toBe(404);
    expect((await exchange(partner)).status).toBe(200);

    // Without the old pepper, the keys it hashed no longer exchange: the README says to rotate them first.
    await writeFile(join(dataDir, "key-pepper"), `${newPepper}\n`);
    await restart();
    expect((await exchange(partner)).status).toBe(401);
    expect((await exchange(fresh)).status).toBe(200);
  });
});
