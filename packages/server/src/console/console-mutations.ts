import { BacktestError } from "@pricing/engine";
import { ApiError, dateSchema, promoteBodySchema, rollbackBodySchema } from "@pricing/http-adapter";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { updateCompanySettings } from "../services/company-settings.js";
import { promoteModel } from "../services/promote-model.js";
import { rollbackModel } from "../services/rollback-model.js";
import { runBacktest } from "../services/run-backtest.js";
import { validatedInput } from "../services/validated-input.js";

/**
 * A state-changing `/api/` request of the console: the service it calls and the `pricing` command that changes the
 * same thing through that same service (`by` `console:<name>` here, `operator` there), so the console can never do
 * what the CLI cannot, nor differently.
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
const backtestBody = z.strictObject({
  from: dateSchema,
  to: dateSchema.optional(),
  refit: z.enum(["daily", "once"]).optional(),
});

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
  {
    path: "/api/companies/:company_id/backtests",
    cli: "backtest",
    run: async (ctx, { company_id }, body, by) => {
      const request = validatedInput(backtestBody, body, "body");
      try {
        // `--save`: the console's backtests are always kept, it shows nothing else.
        const { saved } = await runBacktest(ctx, { company_id, ...request, save: true }, { by });
        return saved;
      } catch (error) {
        // The range the operator chose cannot be backtested (before the first sale, no sales in it): a 400.
        if (error instanceof BacktestError) throw new ApiError("validation_error", error.message);
        throw error;
      }
    },
  },
];
