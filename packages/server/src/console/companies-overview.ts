import type { ModelReport } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { BatchOutcomesTable } from "../db/schema.js";
import { settingsOf } from "../repositories/companies.js";
import { servedPolicy } from "../services/active-policy.js";

export interface CompanySummaryView {
  company_id: string;
  name: string;
  timezone: string;
  currency: string;
  products: number;
  /** What serves now, and why a slot was passed over (the model report's). */
  source: ModelReport["source"];
  model_id: string | null;
  fallback_reason: ModelReport["fallback_reason"];
  exploration: "off" | "cautious" | "free";
  force_rule: boolean;
  auto_approve_updates: boolean;
  /** The company's outcome in the newest nightly batch that ran it; null before the first. */
  last_nightly: Pick<
    BatchOutcomesTable,
    "batch_id" | "as_of" | "status" | "run_id" | "error" | "finished_at"
  > | null;
  partners: string[];
}

/**
 * Every company at a glance (the console's first page): which source serves and why, its settings, its last
 * nightly outcome. The sources come from the resolver, which keeps checked artifacts cached, so no page load
 * reads an artifact twice.
 */
export async function companiesOverview(ctx: ServerContext): Promise<{ companies: CompanySummaryView[] }> {
  const [companies, products, nightly] = await Promise.all([
    ctx.repositories.companies.list(),
    ctx.repositories.products.countsByCompany(),
    ctx.repositories.batchOutcomes.latestByCompany(),
  ]);
  const views = await Promise.all(
    companies.map(async (company): Promise<CompanySummaryView> => {
      const { report } = await servedPolicy(ctx, company);
      const outcome = nightly.get(company.company_id);
      return {
        company_id: company.company_id,
        name: company.name,
        timezone: company.timezone,
        currency: company.currency,
        products: products.get(company.company_id) ?? 0,
        source: report.source,
        model_id: report.model_id,
        fallback_reason: report.fallback_reason,
        ...settingsOf(company),
        last_nightly:
          outcome === undefined
            ? null
            : {
                batch_id: outcome.batch_id,
                as_of: outcome.as_of,
                status: outcome.status,
                run_id: outcome.run_id,
                error: outcome.error,
                finished_at: outcome.finished_at,
              },
        partners: company.partners,
      };
    }),
  );
  return { companies: views };
}
