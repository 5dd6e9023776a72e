import { ApiError } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";

/** The company's row, or 404 `company_not_found`: every operation on a company starts here. */
export async function findCompany(ctx: ServerContext, companyId: string): Promise<CompanyRow> {
  const row = await ctx.repositories.companies.get(companyId);
  if (!row) throw new ApiError("company_not_found");
  return row;
}
