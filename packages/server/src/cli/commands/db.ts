import type { Command } from "commander";
import { type CliRuntime, requireDatabase } from "../cli-runtime.js";

export function registerDbCommands(program: Command, cli: CliRuntime): void {
  const db = program.command("db").description("Database maintenance");

  db.command("migrate")
    .description("Apply pending migrations (SQLite file in the data dir, or PRICING_DATABASE_URL)")
    .action(async (_opts: unknown, cmd: Command) => {
      const config = cli.config(cmd);
      await requireDatabase(config);
      const [{ createDatabase }, { migrateToLatest }] = await Promise.all([
        import("../../db/database.js"),
        import("../../db/migrate.js"),
      ]);
      const handle = createDatabase(config);
      try {
        const report = await migrateToLatest(handle);
        cli.print(
          cmd,
          report,
          report.applied.length === 0 ? "database is up to date" : `applied: ${report.applied.join(", ")}`,
        );
      } finally {
        await handle.destroy();
      }
    });
}
