import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig, type RunningServer, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./http-harness.js";
import { fromSource, TSX } from "./tsx-source.js";

const exec = promisify(execFile);
const CLI = join(process.cwd(), "packages/server/src/cli.ts");

let dataDir: string;
let server: RunningServer;

/** The caller's environment without our settings, so the child uses the same generated secrets as the server. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/** The real `pricing` bin in a child process. */
async function pricing(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(TSX, fromSource(CLI, ...args), {
      env: { ...cleanEnv(), PRICING_DATA_DIR: dataDir, PRICING_LOG_LEVEL: "silent" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function exchange(keys: { access_key: string; secret_key: string }) {
  return fetch(`${server.url}/public/v1/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ access_key: keys.access_key, secret_key: keys.secret_key }),
  });
}

async function readModel(token: string) {
  return fetch(`${server.url}/public/v1/v2/model?company_id=acme-eu`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-cli-"));
  server = await startServer(loadConfig({}, { dataDir, port: 0, logLevel: "silent" }));
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("key rotation (spec §5.8) through the CLI and the API", () => {
  it("supersedes the old pair at once while tokens already minted stay valid", async () => {
    const created = await pricing("partner", "create", "--name", "Acme Partner", "--json");
    expect(created.code, created.stderr).toBe(0);
    const first = JSON.parse(created.stdout);
    expect(first.secret_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    // The remaining setup runs the same CLI in-process (a child process costs ~2 s of start-up each).
    expect((await cli(dataDir, "company", "create", "--id", "acme-eu", "--name", "Acme EU")).code).toBe(0);
    expect(
      (await cli(dataDir, "company", "map", "--partner", first.partner_id, "--company", "acme-eu")).code,
    ).toBe(0);

    const before = await exchange(first);
    expect(before.status).toBe(200);
    const oldToken = ((await before.json()) as { access_token: string }).access_token;

    const rotatedRun = await pricing("partner", "rotate-keys", first.partner_id, "--json");
    expect(rotatedRun.code, rotatedRun.stderr).toBe(0);
    const second = JSON.parse(rotatedRun.stdout);
    expect(second.partner_id).toBe(first.partner_id);
    expect(second.access_key).not.toBe(first.access_key);

    const oldKeys = await exchange(first);
    expect(oldKeys.status).toBe(401);
    expect(((await oldKeys.json()) as { error: { code: string } }).error.code).toBe("invalid_credentials");
    const newKeys = await exchange(second);
    expect(newKeys.status).toBe(200);

    // The token minted from the old pair still passes the bearer and company checks.
    const withOldToken = await readModel(oldToken);
    expect([200, 503]).toContain(withOldToken.status);
    const withNewToken = await readModel(((await newKeys.json()) as { access_token: string }).access_token);
    expect([200, 503]).toContain(withNewToken.status);

    // The secret is never listed again.
    const listed = await cli(dataDir, "partner", "list");
    expect(listed.stdout).toContain(second.access_key);
    expect(listed.stdout).not.toContain(second.secret_key);
    expect(listed.stdout).not.toContain("secret");
  });

  it("has --help on every command and exits non-zero with a message on stderr on errors", async () => {
    const help = await pricing("partner", "rotate-keys", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: pricing partner rotate-keys");
    const missing = await cli(dataDir, "partner", "disable", "ptr_nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('partner \\"ptr_nope\\" does not exist');
    const usage = await cli(dataDir, "company", "create", "--name", "no id");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--id");
    for (const args of [
      ["partner", "--help"],
      ["company", "map", "--help"],
      ["data", "import", "--help"],
      ["db", "migrate", "--help"],
      ["serve", "--help"],
    ]) {
      const res = await cli(dataDir, ...args);
      expect(res.code, args.join(" ")).toBe(0);
      expect(res.stdout, args.join(" ")).toContain("Usage: pricing");
    }
    const json = await pricing("company", "map", "--partner", "ptr_nope", "--company", "acme-eu", "--json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error.code).toBe("not_found");
  });
});
