import type { ServerContext } from "../context.js";
import { batchStatus } from "../jobs/nightly-batch.js";
import type { BatchesView } from "./batches-page.js";

/** Batches the page lists, newest first. */
const BATCHES_SHOWN = 30;

/** The newest batches with each company's outcome (`pricing batch status`'s), and the schedule. */
export async function batchesOverview(ctx: ServerContext): Promise<BatchesView> {
  const { batches } = await batchStatus(ctx, BATCHES_SHOWN);
  return { schedule: ctx.config.pricing.batchCron, batches };
}
