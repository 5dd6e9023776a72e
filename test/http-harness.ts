import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type App, type AppOptions, buildApp, type ConfigInput, loadConfig, runCli } from "@pricing/server";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: parsed CLI JSON is inspected loosely in tests
  json: any;
}

/** Runs the real CLI in-process against a data dir, with --json. */
export async function cli(dataDir: string, ...args: string[]): Promise<CliResult> {
  return cliWithEnv({}, dataDir, ...args);
}

/** `cli` with an environment, for settings such as a short training budget. */
export async function cliWithEnv(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  ...args: string[]
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...args, "--data-dir", dataDir, "--json"], {
    io: {
      out: (t) => {
        stdout += t;
      },
      err: (t) => {
        stderr += t;
      },
    },
    env,
  });
  let json: unknown = null;
  try {
    json = JSON.parse(stdout || stderr);
  } catch {
    json = null;
  }
  return { code, stdout, stderr, json };
}

/** `cli` for set-up steps that must succeed: throws with the CLI's stderr otherwise, returns its JSON document. */
export async function cliOk(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(dataDir, ...args);
  if (result.code !== 0) throw new Error(`pricing ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return result.json as Record<string, unknown>;
}

export interface Harness extends App {
  dataDir: string;
  /** Every JSON log line the server wrote. */
  logs: string[];
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  cli(...args: string[]): Promise<CliResult>;
  /** A partner (via the CLI) mapped to a fresh company. */
  partnerWithCompany(companyId?: string): Promise<Partner>;
  token(p: { access_key: string; secret_key: string }): Promise<string>;
  jwtSecret(): Promise<string>;
  destroy(): Promise<void>;
}

export interface Partner {
  partner_id: string;
  access_key: string;
  secret_key: string;
  company_id: string;
}

let companySeq = 0;

/** The real app (SQLite file in a temp data dir, real auth) with an injectable clock and captured logs. */
export async function startHarness(
  overrides: ConfigInput = {},
  options: Omit<AppOptions, "clock" | "logStream"> = {},
): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-test-"));
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  let now = Date.parse("2026-03-02T10:00:00Z");
  const config = loadConfig({}, { dataDir, logLevel: "info", ...overrides });
  const app = await buildApp(config, { ...options, clock: () => new Date(now), logStream });
  const harness: Harness = {
    ...app,
    dataDir,
    logs,
    advance(ms) {
      now += ms;
    },
    cli: (...args) => cli(dataDir, ...args),
    async partnerWithCompany(companyId = `co-${++companySeq}`) {
      const created = await harness.cli("partner", "create", "--name", `Partner ${companyId}`);
      if (created.code !== 0) throw new Error(created.stderr);
      const company = await harness.cli(
        "company",
        "create",
        "--id",
        companyId,
        "--name",
        `Company ${companyId}`,
      );
      if (company.code !== 0) throw new Error(company.stderr);
      const mapped = await harness.cli(
        "company",
        "map",
        "--partner",
        created.json.partner_id,
        "--company",
        companyId,
      );
      if (mapped.code !== 0) throw new Error(mapped.stderr);
      return { ...created.json, company_id: companyId };
    },
    async token(p) {
      const res = await app.app.inject({
        method: "POST",
        url: "/public/v1/auth/token",
        payload: { access_key: p.access_key, secret_key: p.secret_key },
      });
      if (res.statusCode !== 200) throw new Error(`token exchange failed: ${res.body}`);
      return res.json().access_token;
    },
    async jwtSecret() {
      return (await readFile(join(dataDir, "jwt-secret"), "utf8")).trim();
    },
    async destroy() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

function b64url(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}

/** Hand-rolled JWT so tests can build tokens the server must refuse. */
export function craftJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: string | null,
): string {
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  if (secret === null) return `${signingInput}.`;
  return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
}

export function decodeJwt(token: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [h, p] = token.split(".");
  return {
    header: JSON.parse(Buffer.from(h ?? "", "base64url").toString()),
    payload: JSON.parse(Buffer.from(p ?? "", "base64url").toString()),
  };
}

/** The envelope without its per-request id, to compare bodies across requests. */
export function withoutRequestId(body: string): unknown {
  const parsed = JSON.parse(body);
  delete parsed.error.request_id;
  return parsed;
}
