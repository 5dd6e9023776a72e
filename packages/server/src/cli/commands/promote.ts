import type { ModelReport } from "@pricing/http-adapter";
import type { Command } from "commander";
import { OPERATOR } from "../../services/slot-actors.js";
import type { CliRuntime } from "../cli-runtime.js";

export function modelReportLines(report: ModelReport): string[] {
  const slot = (s: { model_id: string; version: number; trained_at: string } | null) =>
    s === null ? "-" : `${s.model_id} (version ${s.version}, trained ${s.trained_at})`;
  return [
    `company:   ${report.company_id}`,
    `source:    ${report.source}${report.fallback_reason ? ` (fallback: ${report.fallback_reason})` : ""}`,
    `model_id:  ${report.model_id ?? "-"}`,
    `latest:    ${slot(report.latest)}`,
    `approved:  ${slot(report.approved)}${report.approved ? ` approved ${report.approved.approved_at}` : ""}`,
  ];
}

export function registerPromoteCommand(program: Command, cli: CliRuntime): void {
  program
    .command("promote")
    .description("Promote the latest artifact to approved (--model must be the current latest id)")
    .requiredOption("--company <company_id>", "company")
    .requiredOption("--model <model_id>", "the current latest model id (see: pricing model)")
    .action(async (opts: { company: string; model: string }, cmd: Command) => {
      const { promoteModel } = await import("../../services/promote-model.js");
      await cli.withContext(cmd, async (ctx) => {
        const report = await promoteModel(ctx, { company_id: opts.company, model_id: opts.model }, OPERATOR);
        cli.print(cmd, report, modelReportLines(report));
      });
    });
}
