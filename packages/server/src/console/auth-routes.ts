import type { FastifyInstance } from "fastify";
import { operatorName } from "./console-auth.js";
import type { ConsoleState } from "./console-state.js";
import { loginPage } from "./login-page.js";

/** Where to go after logging in: a path of this console, never another site (`//evil`, `/\evil`). */
function localPath(next: unknown): string {
  return typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : "/";
}

/** Bytes of a login form at most. */
const LOGIN_BODY_LIMIT = 4096;

/** The login form (GET, POST) and logout (POST); POSTs pass the console's cross-site check like any other. */
export function registerAuthRoutes(app: FastifyInstance, state: ConsoleState): void {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: LOGIN_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const form = (next: string, error: string | null) => ({
    name: "login" as const,
    title: "Log in",
    body: loginPage({ needsToken: state.auth.needsToken, next, error }),
  });

  app.get("/login", async (request, reply) => {
    const next = localPath((request.query as Record<string, unknown>).next);
    return state.page(reply, form(next, null), request);
  });

  app.post("/login", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next = localPath(body.next);
    const operator = operatorName(body.operator);
    if (operator === null) {
      reply.code(400);
      return state.page(
        reply,
        form(next, "Give your name: letters, digits, spaces and . _ @ -, up to 64 characters."),
        request,
      );
    }
    const session = state.auth.login(typeof body.token === "string" ? body.token : undefined, operator);
    if (session === null) {
      request.log.warn({ operator }, "console login refused: wrong token");
      reply.code(401);
      return state.page(reply, form(next, "That token is not this console's."), request);
    }
    request.log.info({ operator }, "console login");
    state.auth.setSessionCookie(request, reply, session);
    return reply.redirect(next, 303);
  });

  app.post("/logout", async (request, reply) => {
    state.auth.logout(request, reply);
    return reply.redirect("/login", 303);
  });
}
