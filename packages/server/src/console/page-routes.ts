import type { FastifyInstance } from "fastify";
import { backtestsOverview } from "./backtests-overview.js";
import { backtestsPage } from "./backtests-page.js";
import { batchesOverview } from "./batches-overview.js";
import { batchesPage } from "./batches-page.js";
import { companiesOverview } from "./companies-overview.js";
import { companiesPage } from "./companies-page.js";
import { companyDetail, requestedProduct } from "./company-detail.js";
import { companyPage } from "./company-page.js";
import type { ConsoleState } from "./console-state.js";
import { modelOverview } from "./model-overview.js";
import { modelPage } from "./model-page.js";

type CompanyParams = { company_id: string };

/** The console's pages: server-rendered, each with the view its `/api/` twin answers as its page data. */
export function registerPageRoutes(app: FastifyInstance, state: ConsoleState): void {
  const { ctx } = state;
  app.get("/", async (request, reply) => {
    const view = await companiesOverview(ctx);
    return state.page(
      reply,
      { name: "companies", title: "Companies", body: companiesPage(view), data: view },
      request,
    );
  });
  app.get<{ Params: CompanyParams }>("/companies/:company_id", async (request, reply) => {
    const view = await companyDetail(ctx, request.params.company_id, requestedProduct(request.query));
    return state.page(
      reply,
      { name: "company", title: view.company.company_id, body: companyPage(view), data: view },
      request,
    );
  });
  app.get<{ Params: CompanyParams }>("/companies/:company_id/model", async (request, reply) => {
    const view = await modelOverview(ctx, request.params.company_id);
    return state.page(
      reply,
      { name: "model", title: `Model of ${view.report.company_id}`, body: modelPage(view), data: view },
      request,
    );
  });
  app.get<{ Params: CompanyParams }>("/companies/:company_id/backtests", async (request, reply) => {
    const view = await backtestsOverview(ctx, request.params.company_id);
    return state.page(
      reply,
      { name: "backtests", title: `Backtests of ${view.company_id}`, body: backtestsPage(view), data: view },
      request,
    );
  });
  app.get("/batches", async (request, reply) => {
    const view = await batchesOverview(ctx);
    return state.page(
      reply,
      { name: "batches", title: "Batches", body: batchesPage(view), data: view },
      request,
    );
  });
}
