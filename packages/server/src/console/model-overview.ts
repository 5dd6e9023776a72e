import type { ServerContext } from "../context.js";
import { modelHistory } from "../services/model-history.js";
import { modelReport } from "../services/model-report.js";
import type { ModelOverview } from "./model-page.js";

/** Events and artifacts the model page lists (the API pages them; the console shows the newest). */
const HISTORY_SHOWN = 50;

/** The model report and the slot history, through the services behind `GET /v2/model` and `/v2/model/history`. */
export async function modelOverview(ctx: ServerContext, companyId: string): Promise<ModelOverview> {
  const [report, history] = await Promise.all([
    modelReport(ctx, { company_id: companyId }),
    modelHistory(ctx, { company_id: companyId, limit: HISTORY_SHOWN, offset: 0 }),
  ]);
  return { report, history };
}
