import type { Command } from "commander";
import { OPERATOR } from "../../services/slot-actors.js";
import type { CliRuntime } from "../cli-runtime.js";
import { progressBar } from "../progress-bar.js";

export function registerTrainCommand(program: Command, cli: CliRuntime): void {
  program
    .command("train")
    .description(
      "Train a fresh RL policy artifact for a company (becomes latest; with --auto-approve also approved)",
    )
    .requiredOption("--company <company_id>", "company to train")
    .option("--auto-approve", "also promote the new artifact to approved, in the same step", false)
    .action(async (opts: { company: string; autoApprove: boolean }, cmd: Command) => {
      const json = cli.globals(cmd).json === true;
      const { trainModel } = await import("../../training/train-model.js");
      await cli.withContext(cmd, async (ctx) => {
        const bar = progressBar(cli, "training", !json && process.stderr.isTTY === true);
        const result = await trainModel(
          ctx,
          { company_id: opts.company, auto_approve: opts.autoApprove },
          { onProgress: bar, by: OPERATOR },
        );
        bar(1);
        cli.print(cmd, result, [
          `model ${result.model_id} (version ${result.version}) trained for ${result.company_id}`,
          `slots: latest=${result.slots.latest ?? "-"} approved=${result.slots.approved ?? "-"}`,
          ...Object.entries(result.metrics).map(([k, v]) =>
            typeof v === "number"
              ? `  ${k}: ${Number.isInteger(v) ? v : v.toFixed(4)}`
              : `  ${k}: ${v === null ? "-" : `${v.low} .. ${v.high}`}`,
          ),
        ]);
      });
    });
}
