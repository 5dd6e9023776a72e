import { ApiError, type Recommendation } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "../services/company-lookup.js";

const COLUMNS = [
  "run_id",
  "product_id",
  "date",
  "price",
  "currency",
  "base_price",
  "rule_price",
  "expected_units",
  "expected_units_p10",
  "expected_units_p90",
  "expected_revenue",
  "exploratory",
  "source",
  "model_id",
  "override_id",
  "lowest_price_30d",
  "binding",
] as const;

/**
 * One CSV cell: quoted when it holds a comma, quote or line break; a text starting with `=`, `+`, `-`, `@` or a
 * control character is prefixed with `'` so that a spreadsheet shows it rather than running it as a formula (a
 * product id comes from an import). Numbers are written as they are.
 */
function cell(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function line(runId: string, item: Recommendation): string {
  const row: Record<(typeof COLUMNS)[number], string | number | boolean | null> = {
    run_id: runId,
    product_id: item.product_id,
    date: item.date,
    price: item.price,
    currency: item.currency,
    base_price: item.base_price,
    rule_price: item.rule_price,
    expected_units: item.expected_units,
    expected_units_p10: item.expected_units_p10,
    expected_units_p90: item.expected_units_p90,
    expected_revenue: item.expected_revenue,
    exploratory: item.exploratory,
    source: item.source,
    model_id: item.model_id,
    override_id: item.override_id,
    lowest_price_30d: item.lowest_price_30d,
    binding: item.explanation?.binding ?? null,
  };
  return COLUMNS.map((c) => cell(row[c])).join(",");
}

/**
 * The company's newest run as CSV, one line per product and day (the columns of the API's recommendation item and
 * the explanation's `binding`), with a file name naming the company and the run. 404 `no_run_at_offset` before
 * the company's first run.
 */
export async function runCsv(
  ctx: ServerContext,
  companyId: string,
): Promise<{ fileName: string; csv: string }> {
  await findCompany(ctx, companyId);
  const run = await ctx.repositories.runs.atOffset(companyId, 0);
  if (run === undefined) throw new ApiError("no_run_at_offset", "The company has no persisted run yet.");
  const items = await ctx.repositories.runs.recommendations(run.run_id, { explain: true });
  const csv = [COLUMNS.join(","), ...items.map((item) => line(run.run_id, item))].join("\r\n");
  return { fileName: `${companyId}-${run.run_id}.csv`, csv: `${csv}\r\n` };
}
