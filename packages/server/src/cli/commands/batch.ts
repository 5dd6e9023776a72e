import type { Command } from "commander";
import { CliError, type CliRuntime } from "../cli-runtime.js";

export function registerBatchCommands(program: Command, cli: CliRuntime): void {
  const batch = program.command("batch").description("The nightly batch of persisted recommendation runs");

  batch
    .command("run")
    .description("Run the nightly batch now (one nightly run per company and day; existing runs are kept)")
    .option("--company <company_id>", "only this company")
    .action(async (opts: { company?: string }, cmd: Command) => {
      const { runNightlyBatch } = await import("../../jobs/nightly-batch.js");
      await cli.withContext(cmd, async (ctx) => {
        const report = await runNightlyBatch(ctx, {
          trigger: "cli",
          ...(opts.company === undefined ? {} : { companyId: opts.company }),
        });
        cli.print(cmd, report, [
          `batch ${report.batch_id}`,
          ...report.companies.map(
            (c) =>
              `  ${c.company_id}  ${c.as_of}  ${c.status}${c.run_id ? `  ${c.run_id}` : ""}${c.error ? `  ${c.error}` : ""}  ${c.seconds.toFixed(2)}s`,
          ),
        ]);
        const failed = report.companies.filter((c) => c.status === "failed");
        if (failed.length > 0) {
          throw new CliError(
            `${failed.length} of ${report.companies.length} companies failed: ${failed.map((c) => c.company_id).join(", ")}`,
            "batch_failed",
          );
        }
      });
    });

  batch
    .command("status")
    .description("The newest batches and each company's outcome")
    .option("--limit <n>", "how many batches", "5")
    .action(async (opts: { limit: string }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new CliError("--limit must be 1..100");
      const { batchStatus } = await import("../../jobs/nightly-batch.js");
      await cli.withContext(cmd, async (ctx) => {
        const status = await batchStatus(ctx, limit);
        const settings = ctx.config.pricing;
        cli.print(
          cmd,
          {
            ...status,
            schedule: settings.batchCron,
            runs_keep: settings.runsKeep,
            on_demand_runs_keep: settings.onDemandRunsKeep,
          },
          [
            `schedule: ${settings.batchCron} (UTC), keeping ${settings.runsKeep} nightly and ${settings.onDemandRunsKeep} on-demand runs per company`,
            ...(status.batches.length === 0
              ? ["no batch has run yet"]
              : status.batches.flatMap((b) => [
                  `batch ${b.batch_id} (${b.trigger}) ${b.started_at} .. ${b.finished_at}`,
                  ...b.outcomes.map(
                    (o) =>
                      `  ${o.company_id}  ${o.as_of}  ${o.status}${o.run_id ? `  ${o.run_id}` : ""}${o.error ? `  ${o.error}` : ""}`,
                  ),
                ])),
          ],
        );
      });
    });
}
