import { existsSync } from "node:fs";
import { type Command, Option } from "commander";
import { CONFIG_SETTINGS, type Config, loadConfig, type SettingPath } from "../config.js";
import type { ServerContext } from "../context.js";

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
  if (!(await ctx.repositories.partners.get(partnerId)))
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

/**
 * The option of a setting that declares a flag (`--port <port>` for `port`): a command adding it lets the flag
 * override the setting's variable, with the setting's description as its help.
 */
export function settingOption(path: SettingPath): Option {
  const setting = CONFIG_SETTINGS.find((s) => s.path === path);
  if (setting?.flag === undefined) throw new Error(`no setting "${path}" with a CLI flag`);
  return new Option(setting.flag, `${setting.description} (overrides ${setting.env})`);
}

/** The command's words after the program's name: `demo`, `batch run`. */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

/** Values of the setting flags the command (or the program) declares, by long flag. */
function settingFlags(cmd: Command): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const option of c.options) {
      const value: unknown = c.getOptionValue(option.attributeName());
      const isSetting = CONFIG_SETTINGS.some((s) => s.flag === option.flags);
      if (isSetting && option.long !== undefined && typeof value === "string") flags[option.long] ??= value;
    }
  }
  return flags;
}

export interface ContextOptions {
  /** Create the SQLite database when the data dir has none (`init`, `demo`); every other command refuses. */
  create?: boolean;
}

/**
 * Refuses a SQLite data dir with no database, naming the resolved path: a relative or mistyped `--data-dir` must
 * not start a new, empty database that the operator then fills or serves by mistake.
 */
export async function requireDatabase(config: Config): Promise<void> {
  if (config.databaseUrl) return;
  const { sqlitePath } = await import("../db/database.js");
  const file = sqlitePath(config.dataDir);
  if (!existsSync(file))
    throw new CliError(
      `no database at ${file}; check --data-dir (or PRICING_DATA_DIR), or create one with \`pricing init --data-dir ${config.dataDir}\``,
      "no_database",
    );
}

/** What every command receives: output, configuration and a scoped server context. */
export interface CliRuntime {
  io: CliIo;
  globals(cmd: Command): GlobalOptions;
  /** The environment, the command's defaults and its setting flags; deprecation warnings go to stderr once. */
  config(cmd: Command): Config;
  /**
   * Builds the context for the command's data dir (migrating the database) and always closes it; the API's
   * expected failures (404, 409, 422) leave as CLI errors with the same code.
   */
  withContext<T>(cmd: Command, fn: (ctx: ServerContext) => Promise<T>, options?: ContextOptions): Promise<T>;
  /** One JSON document with --json, else the human lines. */
  print(cmd: Command, value: unknown, human: string | readonly string[]): void;
}

export function createCliRuntime(io: CliIo, env: NodeJS.ProcessEnv): CliRuntime {
  const configs = new WeakMap<Command, Config>();
  const runtime: CliRuntime = {
    io,
    globals: (cmd) => cmd.optsWithGlobals<GlobalOptions>(),
    config(cmd) {
      const known = configs.get(cmd);
      if (known) return known;
      try {
        const config = loadConfig(
          env,
          {},
          {
            flags: settingFlags(cmd),
            command: commandPath(cmd),
            warn: (message) => io.err(`warning: ${message}\n`),
          },
        );
        configs.set(cmd, config);
        return config;
      } catch (error) {
        throw new CliError((error as Error).message, "invalid_config");
      }
    },
    async withContext(cmd, fn, options = {}) {
      const config = runtime.config(cmd);
      if (options.create !== true) await requireDatabase(config);
      // Loaded on demand, like every heavy module of a command: `pricing --help` loads none of them.
      const [{ createServerContext }, { asApiError }] = await Promise.all([
        import("../context.js"),
        import("../error-translator.js"),
      ]);
      const ctx = await createServerContext(config);
      try {
        return await fn(ctx);
      } catch (error) {
        // The API's expected failures (422, 409, 404) as CLI errors with the same code and message.
        const expected = asApiError(error);
        if (expected !== undefined) throw new CliError(expected.message, expected.code);
        throw error;
      } finally {
        await ctx.close();
      }
    },
    print(cmd, value, human) {
      if (runtime.globals(cmd).json) io.out(`${JSON.stringify(value, null, 2)}\n`);
      else io.out(`${typeof human === "string" ? human : human.join("\n")}\n`);
    },
  };
  return runtime;
}
