import type { ListRunsQuery, ListRunsResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";

/** A company's persisted runs, newest first, each with the `runs_ago` that reads it (`GET /v2/runs`). */
export async function listRuns(ctx: ServerContext, input: ListRunsQuery): Promise<ListRunsResponse> {
  await findCompany(ctx, input.company_id);
  const { total, runs } = await ctx.repositories.runs.list(input.company_id, input.limit, input.offset);
  return { company_id: input.company_id, total, runs };
}
