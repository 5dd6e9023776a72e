import type { Command } from "commander";
import { CliError, type CliRuntime, requireDatabase } from "../cli-runtime.js";

/** The backup module's refusals as CLI errors with the same code. */
async function asCliErrors<T>(fn: () => Promise<T>): Promise<T> {
  const { BackupError } = await import("../../db/backup.js");
  try {
    return await fn();
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message, error.code);
    throw error;
  }
}

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

  db.command("backup")
    .argument("<file>", "the backup file to write (one SQLite file: database and policy artifacts)")
    .description(
      "Back up the embedded SQLite database and the artifacts folder into FILE, consistently while the server runs (PostgreSQL: use pg_dump). Keep the key pepper (<data dir>/key-pepper or PRICING_KEY_PEPPER) apart from it: a restore needs it",
    )
    .option("--force", "overwrite FILE when it exists")
    .action(async (file: string, opts: { force?: boolean }, cmd: Command) => {
      const config = cli.config(cmd);
      const report = await asCliErrors(async () =>
        (await import("../../db/backup.js")).backupDatabase(config, file, { force: opts.force === true }),
      );
      cli.print(
        cmd,
        report,
        `backed up ${report.companies} compan${report.companies === 1 ? "y" : "ies"} (${report.store_objects} store objects, ${report.bytes} bytes) to ${report.file}; keep the key pepper (ids: ${report.pepper_ids.join(", ") || "none"}) apart from it`,
      );
    });

  db.command("restore")
    .argument("<file>", "a file written by `pricing db backup`")
    .description(
      "Restore a backup into the data dir, all or nothing. Refuses a data dir in use by a server, one that already holds data (unless --force) and one without the key pepper the backup's key hashes need",
    )
    .option("--force", "replace the database and artifacts the data dir holds")
    .option("--ignore-pepper", "restore without the matching key pepper (every partner then needs new keys)")
    .action(async (file: string, opts: { force?: boolean; ignorePepper?: boolean }, cmd: Command) => {
      const config = cli.config(cmd);
      const report = await asCliErrors(async () =>
        (await import("../../db/backup.js")).restoreDatabase(config, file, {
          force: opts.force === true,
          ignorePepper: opts.ignorePepper === true,
        }),
      );
      cli.print(cmd, report, [
        `restored the backup of ${report.created_at} (${report.companies} compan${report.companies === 1 ? "y" : "ies"}) into ${report.data_dir}${report.replaced ? ", replacing what was there" : ""}`,
        ...(report.missing_pepper_ids.length > 0
          ? [
              `warning: key pepper id(s) ${report.missing_pepper_ids.join(", ")} are missing: rotate every partner's keys (pricing partner rotate-keys)`,
            ]
          : []),
      ]);
    });
}
