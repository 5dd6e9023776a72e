import { ApiError } from "@pricing/http-adapter";
import type { FastifyInstance } from "fastify";
import { backtestsOverview } from "./backtests-overview.js";
import { batchesOverview } from "./batches-overview.js";
import { companiesOverview } from "./companies-overview.js";
import { companyDetail, requestedProduct } from "./company-detail.js";
import { consoleActor } from "./console-auth.js";
import { CONSOLE_MUTATIONS } from "./console-mutations.js";
import type { ConsoleState } from "./console-state.js";
import { modelOverview } from "./model-overview.js";
import { runCsv } from "./run-csv.js";

type CompanyParams = { company_id: string };

/**
 * The console's JSON, under `/api/` on its own port: what each page shows (the pages embed the same views), the
 * demand curves the company page draws, the run's CSV, and the mutations of `CONSOLE_MUTATIONS`, which take JSON
 * only (a form on another site cannot send it) and record `console:<operator>` as who acted.
 */
export function registerApiRoutes(app: FastifyInstance, state: ConsoleState): void {
  const { ctx } = state;
  app.get("/api/companies", async () => companiesOverview(ctx));
  app.get<{ Params: CompanyParams }>("/api/companies/:company_id", async (request) =>
    companyDetail(ctx, request.params.company_id, requestedProduct(request.query)),
  );
  app.get<{ Params: CompanyParams & { product_id: string } }>(
    "/api/companies/:company_id/products/:product_id/demand-curve",
    async (request) => state.curves.curve(request.params.company_id, request.params.product_id),
  );
  app.get<{ Params: CompanyParams }>("/api/companies/:company_id/run.csv", async (request, reply) => {
    const { fileName, csv } = await runCsv(ctx, request.params.company_id);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="${fileName}"`)
      .send(csv);
  });
  app.get<{ Params: CompanyParams }>("/api/companies/:company_id/model", async (request) =>
    modelOverview(ctx, request.params.company_id),
  );
  app.get<{ Params: CompanyParams }>("/api/companies/:company_id/backtests", async (request) =>
    backtestsOverview(ctx, request.params.company_id),
  );
  app.get("/api/batches", async () => batchesOverview(ctx));

  for (const mutation of CONSOLE_MUTATIONS) {
    app.post<{ Params: CompanyParams }>(mutation.path, async (request) => {
      if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
        throw new ApiError("unsupported_media_type");
      }
      const by = consoleActor(state.operator(request));
      return mutation.run(ctx, request.params, request.body, by);
    });
  }
}
