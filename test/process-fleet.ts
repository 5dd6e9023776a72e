import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createServerContext, demoScenario, loadConfig, seedCompanyFromMarket } from "@pricing/server";
import pg from "pg";
import { fromSource } from "./tsx-source.js";

const CLI = join(process.cwd(), "packages/server/src/cli.ts");

/** The environment without the runner's own pricing settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/**
 * One `pricing` process from source, its output kept as lines (pino's JSON lines parsed when they are JSON). Node
 * itself with tsx's loader, not the `tsx` wrapper, which runs the program in a child of its own: a SIGKILL must
 * reach the process that works.
 */
export class PricingProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  #waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, ["--import", "tsx", ...fromSource(CLI, ...args)], {
      env: { ...cleanEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) {
        if (line.trim() === "") continue;
        this.lines.push(line);
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.test(line)) return true;
          w.resolve(line);
          return false;
        });
      }
    };
    this.child.stdout?.on("data", onData);
    this.child.stderr?.on("data", onData);
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** The first line (already written or to come) matching `test`; rejects if the process exits first. */
  line(test: (line: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.name}: no ${what} within ${timeoutMs} ms:\n${this.lines.slice(-20).join("\n")}`,
            ),
          ),
        timeoutMs,
      );
      this.#waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(
          new Error(`${this.name} exited (${code}) before ${what}:\n${this.lines.slice(-20).join("\n")}`),
        );
      });
    });
  }

  /** The first JSON log line whose `msg` is `msg` and whose fields include `fields`. */
  async log(
    msg: string,
    fields: Record<string, unknown> = {},
    timeoutMs?: number,
  ): Promise<Record<string, unknown>> {
    const matches = (line: string) => {
      const entry = parseJson(line);
      return entry?.msg === msg && Object.entries(fields).every(([k, v]) => entry[k] === v);
    };
    return parseJson(await this.line(matches, `log "${msg}"`, timeoutMs)) ?? {};
  }

  logs(msg: string): Record<string, unknown>[] {
    return this.lines.map(parseJson).filter((e): e is Record<string, unknown> => e?.msg === msg);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** An API replica: `pricing serve` with its URL read from its first line. */
export async function startReplica(
  name: string,
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ process: PricingProcess; url: string }> {
  const process = new PricingProcess(name, ["serve", "--port", "0", ...args], env);
  const line = await process.line((l) => l.startsWith("listening on "), "listening line");
  const url = /listening on (http:\/\/[^;\s]+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`${name}: no URL in "${line}"`);
  return { process, url };
}

/**
 * A fresh database on the test PostgreSQL server, dropped by the returned function; with `template`, a copy of
 * that database (which nothing may be connected to), so one seeding serves several scenarios.
 */
export async function createTestDatabase(
  serverUrl: string,
  prefix: string,
  template?: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template === undefined ? "" : ` template ${template}`}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Seeds `ids` in the database of `env` (UTC companies, a small demo market each, `options` as `demoScenario`'s)
 * from this process, before any `pricing` process starts.
 */
export async function seedCompanies(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  ids: readonly string[],
  options: Omit<Parameters<typeof demoScenario>[0], "name" | "seed">,
): Promise<void> {
  const ctx = await createServerContext(loadConfig(env, { dataDir }));
  try {
    for (const [i, id] of ids.entries()) {
      await seedCompanyFromMarket(ctx, {
        companyId: id,
        name: id,
        timezone: "UTC",
        currency: "EUR",
        dir: join(dataDir, "csv", id),
        scenario: demoScenario({ ...options, name: id, seed: 20 + i }),
      });
    }
  } finally {
    await ctx.close();
  }
}
