import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";

export function registerInitCommand(program: Command, cli: CliRuntime): void {
  program
    .command("init")
    .description("Create the data dir and its database (or migrate PRICING_DATABASE_URL); safe to run again")
    .action(async (_opts: unknown, cmd: Command) => {
      const config = cli.config(cmd);
      const { sqlitePath } = await import("../../db/database.js");
      await cli.withContext(cmd, async () => undefined, { create: true });
      const database = config.databaseUrl ? "PRICING_DATABASE_URL" : sqlitePath(config.dataDir);
      cli.print(cmd, { data_dir: config.dataDir, database }, `database ready: ${database}`);
    });
}
