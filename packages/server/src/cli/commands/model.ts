import type { ModelHistory } from "@pricing/http-adapter";
import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { modelReportLines } from "./promote.js";

function historyLines(history: ModelHistory): string[] {
  const artifacts = history.artifacts.map((a) => {
    const approved =
      a.approved_from === null ? "" : ` approved ${a.approved_from} .. ${a.approved_until ?? "now"}`;
    return `  ${a.model_id} version ${a.version} trained ${a.trained_at}${approved}`;
  });
  const events = history.events.map((e) => `  ${e.at} ${e.kind.padEnd(11)} ${e.model_id} by ${e.by ?? "-"}`);
  return [
    `company:   ${history.company_id}`,
    `artifacts (${history.total_artifacts}, newest first):`,
    ...(artifacts.length > 0 ? artifacts : ["  -"]),
    `events (${history.total_events}, newest first):`,
    ...(events.length > 0 ? events : ["  -"]),
  ];
}

function count(name: string) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value)) throw new Error(`${name} must be a whole number`);
    return Number(value);
  };
}

export function registerModelCommand(program: Command, cli: CliRuntime): void {
  const model = program
    .command("model")
    .description(
      "Show which artifact backs inference for a company (approved, latest or rule); `model history` and " +
        "`model rollback` list and undo approvals",
    )
    // Not a required option: commander would then demand it of the subcommands too.
    .option("--company <company_id>", "company (required)")
    .action(async (opts: { company?: string }, cmd: Command) => {
      const company = opts.company;
      if (company === undefined)
        return cmd.error("error: required option '--company <company_id>' not specified");
      const { modelReport } = await import("../../services/model-report.js");
      await cli.withContext(cmd, async (ctx) => {
        const report = await modelReport(ctx, { company_id: company });
        cli.print(cmd, report, modelReportLines(report));
      });
    });

  model
    .command("history")
    .description(
      "List a company's stored artifacts and model slot changes (trained, promoted, rolled_back), newest first",
    )
    .argument("<company_id>", "company")
    .option("--limit <n>", "entries of each list (1..100)", count("--limit"), 20)
    .option("--offset <n>", "entries of each list to skip", count("--offset"), 0)
    .action(async (company: string, opts: { limit: number; offset: number }, cmd: Command) => {
      const { modelHistory } = await import("../../services/model-history.js");
      const { modelHistoryQuerySchema } = await import("@pricing/http-adapter");
      const query = modelHistoryQuerySchema.parse({
        company_id: company,
        limit: opts.limit,
        offset: opts.offset,
      });
      await cli.withContext(cmd, async (ctx) => {
        const history = await modelHistory(ctx, query);
        cli.print(cmd, history, historyLines(history));
      });
    });

  model
    .command("rollback")
    .description("Approve again an artifact that was approved before (see: pricing model history)")
    .argument("<company_id>", "company")
    .argument("<model_id>", "the artifact to approve again")
    .option(
      "--expected-approved <model_id>",
      "refuse unless this artifact is approved now (default: whatever is approved when the command reads it)",
    )
    .action(async (company: string, modelId: string, opts: { expectedApproved?: string }, cmd: Command) => {
      const { rollbackModel } = await import("../../services/rollback-model.js");
      const { OPERATOR } = await import("../../services/slot-actors.js");
      await cli.withContext(cmd, async (ctx) => {
        const expected =
          opts.expectedApproved ?? (await ctx.policies.store.getSlots(company)).approved?.model_id ?? null;
        const report = await rollbackModel(
          ctx,
          { company_id: company, model_id: modelId, expected_approved_model_id: expected },
          OPERATOR,
        );
        cli.print(cmd, report, modelReportLines(report));
      });
    });
}
