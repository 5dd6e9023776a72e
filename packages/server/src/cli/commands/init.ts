import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";

export function registerInitCommand(program: Command, cli: CliRuntime): void {
  program
    .command("init")
    .description("Create the data dir and its database (or migrate PRICING_DATABASE_URL); safe to run again")
    .action(async (_opts: unknown, cmd: Command) => {
      const config = cli.config(cmd);
      const { sqlitePath } = await import("../../db/database.js");
      const { makeDirPrivate } = await import("../../db/private-files.js");
      await cli.withContext(cmd, async () => undefined, { create: true });
      // An operator's pre-created data dir (mkdir makes it 0755) would leave the secrets beside the database, and
      // the database itself, to every local user's listing and reading: owner-only, and said so.
      const loose = makeDirPrivate(config.dataDir);
      if (loose !== null) {
        cli.io.err(
          `warning: the data dir ${config.dataDir} was open to other users (mode ${loose.toString(8).padStart(4, "0")}); set it to 0700\n`,
        );
      }
      const database = config.databaseUrl ? "PRICING_DATABASE_URL" : sqlitePath(config.dataDir);
      cli.print(cmd, { data_dir: config.dataDir, database }, `database ready: ${database}`);
    });
}
