import type { Command } from "commander";
import { createPricingRuntime } from "../../pricing/pricing-runtime.js";
import type { CliRuntime } from "../cli-runtime.js";
import { cliErrorOf } from "./pricing-cli-errors.js";
import { modelReportLines } from "./promote.js";

export function registerModelCommand(program: Command, cli: CliRuntime): void {
  program
    .command("model")
    .description("Show which artifact backs inference for a company (approved, latest or rule)")
    .requiredOption("--company <company_id>", "company")
    .action(async (opts: { company: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const runtime = createPricingRuntime(ctx, { env: cli.env });
        try {
          await runtime.company(opts.company);
          const report = await runtime.modelReport(opts.company);
          cli.print(cmd, report, modelReportLines(report));
        } catch (error) {
          throw cliErrorOf(error);
        } finally {
          runtime.close();
        }
      });
    });
}
