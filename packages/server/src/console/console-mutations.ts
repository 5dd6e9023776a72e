import { promoteBodySchema, rollbackBodySchema } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { updateCompanySettings } from "../services/company-settings.js";
import { promoteModel } from "../services/promote-model.js";
import { rollbackModel } from "../services/rollback-model.js";
import { validatedInput } from "../services/validated-input.js";

/**
 * A state-changing `/api/` request of the console: the service it calls and the `pricing` command that changes the
 * same thing through that same service (`by` `console:<name>` here, `operator` there), so the console can never do
 * what the CLI cannot, nor differently. Issue 23 adds "run and save a backtest" (`pricing backtest --save`).
 */
export interface ConsoleMutation {
  /** A Fastify route path under `/api/`, POST. */
  readonly path: string;
  /** The `pricing` command (its words) that does the same. */
  readonly cli: string;
  readonly run: (
    ctx: ServerContext,
    params: { company_id: string },
    body: unknown,
    by: string,
  ) => Promise<unknown>;
}

const promoteBody = promoteBodySchema.omit({ company_id: true });
const rollbackBody = rollbackBodySchema.omit({ company_id: true });

export const CONSOLE_MUTATIONS: readonly ConsoleMutation[] = [
  {
    path: "/api/companies/:company_id/settings",
    cli: "company update",
    run: async (ctx, { company_id }, body, by) => {
      const { company, events } = await updateCompanySettings(ctx, company_id, body, by);
      return { company_id: company.company_id, events };
    },
  },
  {
    path: "/api/companies/:company_id/model/promote",
    cli: "promote",
    run: (ctx, { company_id }, body, by) =>
      promoteModel(ctx, { company_id, ...validatedInput(promoteBody, body, "body") }, by),
  },
  {
    path: "/api/companies/:company_id/model/rollback",
    cli: "model rollback",
    run: (ctx, { company_id }, body, by) =>
      rollbackModel(ctx, { company_id, ...validatedInput(rollbackBody, body, "body") }, by),
  },
];
