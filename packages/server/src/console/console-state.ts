import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServerContext } from "../context.js";
import type { ConsoleAuth } from "./console-auth.js";
import type { DemandCurveSource } from "./demand-curves.js";
import type { PageInput } from "./page-layout.js";
import type { AssetUrls } from "./static-assets.js";

/** What the console's routes share: the server's context and the console's own parts. */
export interface ConsoleState {
  ctx: ServerContext;
  auth: ConsoleAuth;
  assets: AssetUrls;
  curves: DemandCurveSource;
  /** The operator of an authenticated request (every route but the login and the assets). */
  operator(request: FastifyRequest): string;
  /** Sends a whole page. */
  page(reply: FastifyReply, page: Omit<PageInput, "operator">, request: FastifyRequest): FastifyReply;
}
