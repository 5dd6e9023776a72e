import {
  ApiError,
  type GetRecommendationsQuery,
  type RecommendationsResponse,
  recommendationsResponseSchema,
  type TaggedJson,
  taggedJson,
} from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { RunRow } from "../db/schema.js";
import { toRun } from "../repositories/runs.js";

async function runAt(ctx: ServerContext, input: GetRecommendationsQuery): Promise<RunRow> {
  const run = await ctx.repositories.runs.atOffset(input.company_id, input.runs_ago);
  if (!run) throw new ApiError("no_run_at_offset");
  return run;
}

async function readRun(
  ctx: ServerContext,
  input: GetRecommendationsQuery,
  run: RunRow,
): Promise<RecommendationsResponse> {
  const recommendations = await ctx.repositories.runs.recommendations(run.run_id, {
    startDate: input.start_date,
    endDate: input.end_date,
    productId: input.product_id,
    explain: input.explain,
  });
  return { company_id: input.company_id, run: toRun(run), recommendations };
}

/** The recommendations of the run `runs_ago` behind the newest, filtered (`GET /v2/recommendations`). */
export async function readRecommendations(
  ctx: ServerContext,
  input: GetRecommendationsQuery,
): Promise<RecommendationsResponse> {
  return readRun(ctx, input, await runAt(ctx, input));
}

/**
 * `readRecommendations` serialized with its ETag, and gzip and brotli codings with theirs (`taggedJson`), from
 * `ctx.responses` when the same run and filter were read before: runs are immutable, so neither the bytes nor
 * their tags go stale. The tag is the bytes' own hash, so every replica and every restart gives the same one; the
 * codings are made once here, off the event loop, so a read served from the cache compresses nothing, and the
 * reads that miss together (every partner polling a new run) share one serialization and compression.
 */
export async function readRecommendationsJson(
  ctx: ServerContext,
  input: GetRecommendationsQuery,
): Promise<TaggedJson> {
  const run = await runAt(ctx, input);
  const key = [
    run.run_id,
    input.start_date ?? "",
    input.end_date ?? "",
    input.product_id ?? "",
    input.explain ? "explain" : "",
  ].join("|");
  return ctx.responses.getOrMake(key, async () => {
    const response = await readRun(ctx, input, run);
    // Checked once here, since the route sends these bytes without its serializer.
    return taggedJson(Buffer.from(JSON.stringify(recommendationsResponseSchema.parse(response))));
  });
}
