import type { Command } from "commander";
import { CliError, type CliRuntime, requirePartner } from "../cli-runtime.js";

/** The `--events` list, checked against the event types; default all of them. */
async function eventTypes(text: string | undefined) {
  const { WEBHOOK_EVENT_TYPES } = await import("@pricing/http-adapter");
  if (text === undefined) return [...WEBHOOK_EVENT_TYPES];
  const types = [
    ...new Set(
      text
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t.length > 0),
    ),
  ];
  const unknown = types.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length > 0) {
    throw new CliError(
      `--events must list event types from: ${WEBHOOK_EVENT_TYPES.join(", ")}${unknown.length > 0 ? ` (unknown: ${unknown.join(", ")})` : ""}`,
    );
  }
  return types as (typeof WEBHOOK_EVENT_TYPES)[number][];
}

function positiveLimit(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError("--limit must be 1..1000");
  return limit;
}

export function registerWebhookCommands(program: Command, cli: CliRuntime): void {
  const webhook = program
    .command("webhook")
    .description("Partners' webhook endpoints (Standard Webhooks, signed) and their deliveries");

  webhook
    .command("add")
    .description(
      "Register an endpoint for a partner; prints its signing secret (whsec_...) once. Private, loopback, " +
        "link-local and unique-local targets are refused unless PRICING_WEBHOOK_ALLOW_PRIVATE=true",
    )
    .requiredOption("--partner <partner_id>", "partner whose companies' events it receives")
    .requiredOption("--url <url>", "http(s) URL the events are POSTed to (redirects are not followed)")
    .option(
      "--events <types>",
      "comma-separated: recommendations.updated, model.trained, model.promoted (default: all)",
    )
    .action(async (opts: { partner: string; url: string; events?: string }, cmd: Command) => {
      const events = await eventTypes(opts.events);
      const { checkWebhookTarget, WebhookTargetError } = await import("../../webhooks/target-address.js");
      const { generateWebhookSecret } = await import("../../webhooks/signature.js");
      await cli.withContext(cmd, async (ctx) => {
        await requirePartner(ctx, opts.partner);
        const url = await checkWebhookTarget(opts.url, {
          allowPrivate: ctx.config.webhookAllowPrivate,
        }).catch((error: unknown) => {
          if (error instanceof WebhookTargetError)
            throw new CliError(error.message, "webhook_target_refused");
          throw error;
        });
        const secret = generateWebhookSecret();
        const endpoint = await ctx.repositories.webhooks.createEndpoint({
          partnerId: opts.partner,
          url: url.href,
          events,
          secret,
          createdAt: ctx.clock().toISOString(),
        });
        cli.print(cmd, { ...endpoint, secret }, [
          `endpoint_id: ${endpoint.endpoint_id}`,
          `partner_id:  ${endpoint.partner_id}`,
          `url:         ${endpoint.url}`,
          `events:      ${endpoint.events.join(", ")}`,
          `secret:      ${secret}`,
          "",
          "Give the secret to the partner now: it is shown only once. They verify each delivery with it",
          "(verifyWebhook of @pricing/client, or any Standard Webhooks library).",
        ]);
      });
    });

  webhook
    .command("list")
    .description("List endpoints (never their secrets)")
    .option("--partner <partner_id>", "only this partner's")
    .action(async (opts: { partner?: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const endpoints = await ctx.repositories.webhooks.listEndpoints(opts.partner);
        cli.print(
          cmd,
          { endpoints },
          endpoints.length === 0
            ? "no webhook endpoints"
            : endpoints.map((e) => `${e.endpoint_id}  ${e.partner_id}  ${e.url}  ${e.events.join(",")}`),
        );
      });
    });

  webhook
    .command("remove")
    .description("Remove an endpoint: nothing more is sent to it; its pending deliveries are marked failed")
    .argument("<endpoint_id>", "endpoint to remove")
    .action(async (endpointId: string, _opts: unknown, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        if (!(await ctx.repositories.webhooks.removeEndpoint(endpointId, ctx.clock().toISOString()))) {
          throw new CliError(`webhook endpoint "${endpointId}" does not exist`, "not_found");
        }
        cli.print(cmd, { endpoint_id: endpointId, removed: true }, `webhook endpoint ${endpointId} removed`);
      });
    });

  webhook
    .command("deliveries")
    .description("List deliveries, newest first: status (pending, delivered, failed), attempts, last answer")
    .option("--partner <partner_id>", "only this partner's endpoints")
    .option("--endpoint <endpoint_id>", "only this endpoint")
    .option("--limit <n>", "how many (1..1000)", "50")
    .action(async (opts: { partner?: string; endpoint?: string; limit: string }, cmd: Command) => {
      const limit = positiveLimit(opts.limit);
      await cli.withContext(cmd, async (ctx) => {
        const deliveries = await ctx.repositories.webhooks.listDeliveries({
          partnerId: opts.partner,
          endpointId: opts.endpoint,
          limit,
        });
        cli.print(
          cmd,
          { deliveries },
          deliveries.length === 0
            ? "no webhook deliveries"
            : deliveries.map(
                (d) =>
                  `${d.delivery_id}  ${d.created_at}  ${d.type}  ${d.company_id}  ${d.endpoint_id}  ${d.status}` +
                  `  attempts: ${d.attempts}` +
                  (d.last_status === null ? "" : `  last: HTTP ${d.last_status}`) +
                  (d.last_error === null || d.status === "delivered" ? "" : `  error: ${d.last_error}`) +
                  (d.next_attempt_at === null ? "" : `  next: ${d.next_attempt_at}`),
              ),
        );
      });
    });
}
