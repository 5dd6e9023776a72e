import type { Command } from "commander";
import { type Config, loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../server-context.js";

/** A failure the operator caused or can fix; printed without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = "cli_error",
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** A display name, trimmed: one rule for partners and companies, so the two commands cannot drift apart. */
export function displayName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || name.length > 200) throw new CliError("--name must be 1 to 200 characters");
  return name;
}

export async function requirePartner(ctx: ServerContext, partnerId: string): Promise<void> {
  if (!(await ctx.partners.get(partnerId)))
    throw new CliError(`partner "${partnerId}" does not exist`, "not_found");
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

/** What every command receives: output, configuration and a scoped server context. */
export interface CliRuntime {
  io: CliIo;
  env: NodeJS.ProcessEnv;
  globals(cmd: Command): GlobalOptions;
  config(cmd: Command): Config;
  /** Opens the database (migrating it) and secrets for the command's data dir; always closes it. */
  withContext<T>(cmd: Command, fn: (ctx: ServerContext) => Promise<T>): Promise<T>;
  /** One JSON document with --json, else the human lines. */
  print(cmd: Command, value: unknown, human: string | readonly string[]): void;
}

export function createCliRuntime(io: CliIo, env: NodeJS.ProcessEnv): CliRuntime {
  const runtime: CliRuntime = {
    io,
    env,
    globals: (cmd) => cmd.optsWithGlobals<GlobalOptions>(),
    config(cmd) {
      const { dataDir } = runtime.globals(cmd);
      try {
        return loadConfig(env, dataDir === undefined ? {} : { dataDir });
      } catch (error) {
        throw new CliError((error as Error).message, "invalid_config");
      }
    },
    async withContext(cmd, fn) {
      const ctx = await createServerContext(runtime.config(cmd));
      try {
        return await fn(ctx);
      } finally {
        await ctx.db.destroy();
      }
    },
    print(cmd, value, human) {
      if (runtime.globals(cmd).json) io.out(`${JSON.stringify(value, null, 2)}\n`);
      else io.out(`${typeof human === "string" ? human : human.join("\n")}\n`);
    },
  };
  return runtime;
}
