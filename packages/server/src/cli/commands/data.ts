import type { Command } from "commander";
import type { ImportCounts } from "../../import/data-import.js";
import { CliError, type CliRuntime } from "../cli-runtime.js";
import { importProgressLine } from "../import-progress.js";

const MAX_LISTED_ISSUES = 50;

function countsLine(label: string, c: ImportCounts | null): string[] {
  return c
    ? [`${label}: ${c.rows} rows, ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged`]
    : [];
}

export function registerDataCommands(program: Command, cli: CliRuntime): void {
  const data = program.command("data").description("Import company data from CSV files");

  data
    .command("import")
    .description(
      "Import products.csv, sales.csv and/or promotions.csv for a company, streaming: every row is validated (errors " +
        "name file, line and column), nothing is written unless all rows are valid, and re-importing the same rows " +
        "changes nothing",
    )
    .requiredOption("--company <company_id>", "target company")
    .option(
      "--products <file>",
      "products.csv: product_id,name,currency,base_price[,unit_cost,min_price,...]",
    )
    .option("--sales <file>", "sales.csv: date,product_id,price,units_sold[,stock_on_hand,promoted]")
    .option(
      "--promotions <file>",
      "promotions.csv: date,product_id,promoted (planned promotions, future dates allowed; a later import for the same date and product replaces it)",
    )
    .action(
      async (
        opts: { company: string; products?: string; sales?: string; promotions?: string },
        cmd: Command,
      ) => {
        const { formatIssue, ImportValidationError, importCompanyData } = await import(
          "../../import/data-import.js"
        );
        const progress = importProgressLine(
          cli.io,
          cli.globals(cmd).json !== true && process.stderr.isTTY === true,
        );
        await cli.withContext(cmd, async (ctx) => {
          try {
            const report = await importCompanyData(ctx.db, ctx.clock, {
              companyId: opts.company,
              productsFile: opts.products,
              salesFile: opts.sales,
              promotionsFile: opts.promotions,
              onProgress: progress.show,
            });
            progress.end();
            cli.print(cmd, report, [
              `imported into ${report.company_id}`,
              ...countsLine("products", report.products),
              ...countsLine("sales", report.sales),
              ...countsLine("promotions", report.promotions),
            ]);
          } catch (error) {
            progress.end();
            if (error instanceof ImportValidationError) {
              const lines = error.issues.slice(0, MAX_LISTED_ISSUES).map(formatIssue);
              if (error.count > lines.length) lines.push(`... and ${error.count - lines.length} more`);
              throw new CliError(error.message, "invalid_data", lines);
            }
            if (error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT") {
              throw new CliError(
                `file not found: ${(error as NodeJS.ErrnoException).path ?? "?"}`,
                "not_found",
              );
            }
            if (
              error instanceof Error &&
              !(error instanceof CliError) &&
              error.message.startsWith("company ")
            ) {
              throw new CliError(error.message, "not_found");
            }
            if (error instanceof Error && error.message.startsWith("nothing to import")) {
              throw new CliError(error.message);
            }
            throw error;
          }
        });
      },
    );
}
