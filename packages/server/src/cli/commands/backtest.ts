import type { Command } from "commander";
import { OPERATOR } from "../../services/slot-actors.js";
import { CliError, type CliRuntime } from "../cli-runtime.js";
import { progressBar } from "../progress-bar.js";

const percent = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);
const ratio = (x: number | null) => (x === null ? "-" : x.toFixed(3));

export function registerBacktestCommand(program: Command, cli: CliRuntime): void {
  program
    .command("backtest")
    .description(
      "Predict every sale from --from to --to at its actual price and promotion with the band the API serves, " +
        "fitted on the sales before each day (--refit daily, as the nightly run) or before --from (--refit once), " +
        "and score it: WAPE, the seasonal-naive baseline's WAPE, bias, p10-p90 coverage",
    )
    .requiredOption("--company <company_id>", "company to backtest")
    .requiredOption("--from <date>", "first held-out date, YYYY-MM-DD (there must be sales before it)")
    .option("--to <date>", "last held-out date, YYYY-MM-DD (default: the last sales date)")
    .option("--refit <when>", "daily (default) or once", "daily")
    .option("--save", "store the report (without its rows) for the console", false)
    .action(
      async (
        opts: { company: string; from: string; to?: string; refit: string; save: boolean },
        cmd: Command,
      ) => {
        if (opts.refit !== "daily" && opts.refit !== "once") {
          throw new CliError(`--refit must be daily or once, got "${opts.refit}"`, "validation_error");
        }
        const refit = opts.refit;
        const json = cli.globals(cmd).json === true;
        const [{ runBacktest }, { BacktestError }] = await Promise.all([
          import("../../services/run-backtest.js"),
          import("@pricing/engine"),
        ]);
        await cli.withContext(cmd, async (ctx) => {
          const bar = progressBar(cli, "backtest", !json && process.stderr.isTTY === true);
          try {
            const { report, saved } = await runBacktest(
              ctx,
              {
                company_id: opts.company,
                from: opts.from,
                ...(opts.to === undefined ? {} : { to: opts.to }),
                refit,
                save: opts.save,
              },
              { by: OPERATOR, onProgress: (p) => bar(p.done / p.total) },
            );
            const s = report.summary;
            cli.print(cmd, saved === null ? report : { backtest_id: saved.backtest_id, ...report }, [
              `backtest of ${report.company_id}, ${report.from} .. ${report.to}, refit ${report.refit}: ${s.rows} rows`,
              `  WAPE ${ratio(s.wape)} (seasonal-naive ${ratio(s.baseline_wape)}), bias ${percent(s.bias)}, ` +
                `p10-p90 coverage ${percent(s.coverage_p10_p90)}`,
              "  product              rows    WAPE   naive    bias  coverage  elasticity (se)",
              ...report.products.map(
                (p) =>
                  `  ${p.product_id.padEnd(18)} ${String(p.rows).padStart(6)} ${ratio(p.wape).padStart(7)} ` +
                  `${ratio(p.baseline_wape).padStart(7)} ${percent(p.bias).padStart(7)} ` +
                  `${percent(p.coverage_p10_p90).padStart(9)}  ${ratio(p.elasticity)} (${ratio(p.elasticity_se)})`,
              ),
              ...(saved === null ? [] : [`saved as ${saved.backtest_id}`]),
            ]);
          } catch (error) {
            if (error instanceof BacktestError) throw new CliError(error.message, error.code);
            throw error;
          }
        });
      },
    );
}
