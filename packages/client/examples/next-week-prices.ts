/**
 * Prints the recommended prices of the next 7 days as a table, one row per product.
 *
 *   PRICING_BASE_URL=https://pricing.example.com/public/v1 \
 *   PRICING_ACCESS_KEY=... PRICING_SECRET_KEY=... PRICING_COMPANY_ID=acme-eu \
 *   pnpm --filter @pricing/client example
 *
 * Reads the latest persisted run (the nightly batch); when the company has none yet, asks for a dry-run compute,
 * which persists nothing.
 */
import { ApiError, PricingClient, type Recommendation } from "@pricing/client";

const DAYS = 7;

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    console.error(`Set ${name} (see the comment at the top of this file).`);
    process.exit(2);
  }
  return value;
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Products down, dates across; a dash where the run has no price for that day. */
function priceTable(recommendations: readonly Recommendation[], dates: readonly string[]): string {
  const byProduct = new Map<string, Map<string, Recommendation>>();
  for (const r of recommendations) {
    const row = byProduct.get(r.product_id) ?? new Map<string, Recommendation>();
    row.set(r.date, r);
    byProduct.set(r.product_id, row);
  }
  const header = ["product", "currency", ...dates.map((d) => d.slice(5))];
  const rows = [...byProduct.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([productId, row]) => {
      const currency = row.values().next().value?.currency ?? "";
      return [productId, currency, ...dates.map((d) => row.get(d)?.price.toFixed(2) ?? "-")];
    });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

async function main(): Promise<void> {
  const client = new PricingClient({
    baseUrl: process.env.PRICING_BASE_URL ?? "http://127.0.0.1:8080/public/v1",
    accessKey: requiredEnv("PRICING_ACCESS_KEY"),
    secretKey: requiredEnv("PRICING_SECRET_KEY"),
  });
  const companyId = requiredEnv("PRICING_COMPANY_ID");
  const start = process.env.PRICING_START_DATE ?? new Date().toISOString().slice(0, 10);
  const dates = Array.from({ length: DAYS }, (_, i) => addDays(start, i));
  const range = { company_id: companyId, start_date: start, end_date: dates[DAYS - 1] };

  let recommendations: Recommendation[];
  let origin: string;
  try {
    const latest = await client.getRecommendations(range);
    recommendations = latest.recommendations;
    origin = `run ${latest.run.run_id} (${latest.run.kind}, ${latest.run.created_at})`;
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "no_run_at_offset")) throw error;
    const computed = await client.computeRecommendations({ ...range, dry_run: true });
    recommendations = computed.recommendations;
    origin = "dry-run compute (no persisted run yet)";
  }
  const first = recommendations[0];
  const source = first === undefined ? "-" : `${first.source}${first.model_id ? ` (${first.model_id})` : ""}`;
  console.log(
    `Prices for ${companyId}, ${dates[0]} to ${dates[DAYS - 1]}; from ${origin}; source ${source}\n`,
  );
  console.log(priceTable(recommendations, dates));
}

main().catch((error: unknown) => {
  if (error instanceof ApiError) {
    console.error(
      `API error ${error.status} ${error.code}: ${error.message} (request_id ${error.requestId})`,
    );
  } else {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  }
  process.exit(1);
});
