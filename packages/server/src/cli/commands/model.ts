import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { modelReportLines } from "./promote.js";

export function registerModelCommand(program: Command, cli: CliRuntime): void {
  program
    .command("model")
    .description("Show which artifact backs inference for a company (approved, latest or rule)")
    .requiredOption("--company <company_id>", "company")
    .action(async (opts: { company: string }, cmd: Command) => {
      const { modelReport } = await import("../../services/model-report.js");
      await cli.withContext(cmd, async (ctx) => {
        const report = await modelReport(ctx, { company_id: opts.company });
        cli.print(cmd, report, modelReportLines(report));
      });
    });
}
