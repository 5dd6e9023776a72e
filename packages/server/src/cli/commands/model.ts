import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { modelReportLines } from "./promote.js";
import { withPricingRuntime } from "./with-pricing-runtime.js";

export function registerModelCommand(program: Command, cli: CliRuntime): void {
  program
    .command("model")
    .description("Show which artifact backs inference for a company (approved, latest or rule)")
    .requiredOption("--company <company_id>", "company")
    .action(async (opts: { company: string }, cmd: Command) => {
      await withPricingRuntime(cli, cmd, async (runtime) => {
        await runtime.company(opts.company);
        const report = await runtime.modelReport(opts.company);
        cli.print(cmd, report, modelReportLines(report));
      });
    });
}
