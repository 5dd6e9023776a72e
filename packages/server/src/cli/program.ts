import { Command, CommanderError } from "commander";
import { CliError, type CliIo, createCliRuntime, settingOption } from "./cli-runtime.js";
import { COMMANDS } from "./commands/index.js";

export interface RunCliOptions {
  io?: CliIo;
  env?: NodeJS.ProcessEnv;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export function createProgram(options: RunCliOptions = {}): Command {
  const io = options.io ?? processIo;
  const cli = createCliRuntime(io, options.env ?? process.env);
  const program = new Command("pricing")
    .description("Operator CLI of the price-recommendation engine and partner API")
    .addOption(settingOption("dataDir"))
    .option("--json", "machine-readable output: one JSON document on stdout")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const register of COMMANDS) register(program, cli);
  const inheritSettings = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
      inheritSettings(sub);
    }
  };
  inheritSettings(program);
  return program;
}

/** Runs the CLI and returns the exit code; errors go to stderr (as JSON with --json), never a stack for our errors. */
export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<number> {
  const io = options.io ?? processIo;
  const program = createProgram({ ...options, io });
  const json = argv.includes("--json");
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its message (or the help); only the exit code is ours.
      return error.exitCode === 0 ? 0 : 2;
    }
    const cliError =
      error instanceof CliError
        ? error
        : new CliError((error as Error).message ?? String(error), "internal_error");
    if (json) {
      io.err(
        `${JSON.stringify({ error: { code: cliError.code, message: cliError.message, details: cliError.details } })}\n`,
      );
    } else {
      io.err(`error: ${cliError.message}\n${cliError.details.map((d) => `  ${d}\n`).join("")}`);
    }
    return 1;
  }
}
