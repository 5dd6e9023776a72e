import type { Command } from "commander";
import type { ImportCounts } from "../../import/data-import.js";
import { CliError, type CliRuntime } from "../cli-runtime.js";

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
      "Import products.csv and/or sales.csv for a company: every row is validated (errors name file, line and " +
        "column), nothing is written unless all rows are valid, and re-importing the same rows changes nothing",
    )
    .requiredOption("--company <company_id>", "target company")
    .option(
      "--products <file>",
      "products.csv: product_id,name,currency,base_price[,unit_cost,min_price,...]",
    )
    .option("--sales <file>", "sales.csv: date,product_id,price,units_sold[,stock_on_hand]")
    .action(async (opts: { company: string; products?: string; sales?: string }, cmd: Command) => {
      const { formatIssue, ImportValidationError, importCompanyData } = await import(
        "../../import/data-import.js"
      );
      await cli.withContext(cmd, async (ctx) => {
        try {
          const report = await importCompanyData(ctx.db, ctx.clock, {
            companyId: opts.company,
            productsFile: opts.products,
            salesFile: opts.sales,
          });
          cli.print(cmd, report, [
            `imported into ${report.company_id}`,
            ...countsLine("products", report.products),
            ...countsLine("sales", report.sales),
          ]);
        } catch (error) {
          if (error instanceof ImportValidationError) {
            const lines = error.issues.slice(0, MAX_LISTED_ISSUES).map(formatIssue);
            if (error.issues.length > MAX_LISTED_ISSUES) {
              lines.push(`... and ${error.issues.length - MAX_LISTED_ISSUES} more`);
            }
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
    });
}
