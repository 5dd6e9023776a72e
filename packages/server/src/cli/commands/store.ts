import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";

export function registerStoreCommands(program: Command, cli: CliRuntime): void {
  const store = program.command("store").description("Housekeeping of the policy artifact store");

  store
    .command("gc")
    .description(
      "Remove artifacts no slot or history references (trainings that died before taking a slot), older than an hour, and stale lock files",
    )
    .option("--dry-run", "list what would be removed, remove nothing")
    .action(async (opts: { dryRun?: boolean }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const result = await ctx.policies.store.gc({ dryRun: opts.dryRun === true });
        const verb = result.dry_run ? "would remove" : "removed";
        cli.print(cmd, result, [
          `${verb} ${result.artifacts.length} artifact(s) and ${result.lock_files.length} lock file(s)`,
          ...result.artifacts.map(
            (a) => `  ${a.company_id}  ${a.model_id}${a.complete ? "" : "  (partial)"}`,
          ),
          ...result.lock_files.map((f) => `  ${f}`),
          ...result.skipped_companies.map((c) => `  skipped ${c}: its slot record does not parse`),
        ]);
      });
    });
}
