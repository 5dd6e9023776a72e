import type { Command } from "commander";
import { CliError, type CliRuntime } from "../cli-runtime.js";

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

  store
    .command("check")
    .description(
      "Check the invariants a crash must not break (slots point at whole, verified artifacts; each version claimed once), for every company or one",
    )
    .option("--company <id>", "check one company only")
    .action(async (opts: { company?: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const companies = opts.company ? [opts.company] : await ctx.policies.store.listCompanies();
        const reports = [];
        for (const company_id of companies) {
          reports.push({ company_id, ...(await ctx.policies.store.checkConsistency(company_id)) });
        }
        const bad = reports.filter((r) => !r.ok);
        if (bad.length > 0) {
          throw new CliError(
            `${bad.length} of ${reports.length} company stores are inconsistent`,
            "store_inconsistent",
            bad.flatMap((r) => r.problems.map((p) => `${r.company_id}: ${p}`)),
          );
        }
        cli.print(cmd, { ok: true, companies: reports.length }, [
          `${reports.length} company store(s) consistent`,
        ]);
      });
    });
}
