import type { Command } from "commander";
import { issueCredentials } from "../../auth/credentials.js";
import { CliError, type CliRuntime, displayName, requirePartner } from "../cli-runtime.js";

function secretLines(partnerId: string, accessKey: string, secretKey: string): string[] {
  return [
    `partner_id:  ${partnerId}`,
    `access_key:  ${accessKey}`,
    `secret_key:  ${secretKey}`,
    "",
    "Store the secret key now: it is shown only once and cannot be recovered.",
  ];
}

export function registerPartnerCommands(program: Command, cli: CliRuntime): void {
  const partner = program.command("partner").description("Manage partner accounts and their key pairs");

  partner
    .command("create")
    .description("Create a partner and its first key pair; prints the secret key once")
    .requiredOption("--name <name>", "display name of the partner")
    .action(async (opts: { name: string }, cmd: Command) => {
      const name = displayName(opts.name);
      await cli.withContext(cmd, async (ctx) => {
        const keys = issueCredentials(ctx.pepper);
        const row = await ctx.repositories.partners.create(name, {
          access_key: keys.access_key,
          secret_hash: keys.secret_hash,
          pepper_id: keys.pepper_id,
        });
        cli.print(
          cmd,
          {
            partner_id: row.partner_id,
            name: row.name,
            access_key: keys.access_key,
            secret_key: keys.secret_key,
          },
          secretLines(row.partner_id, keys.access_key, keys.secret_key),
        );
      });
    });

  partner
    .command("rotate-keys")
    .description(
      "Issue a new key pair; the old pair stops minting tokens at once (minted tokens run to expiry)",
    )
    .argument("<partner_id>", "partner to rotate")
    .action(async (partnerId: string, _opts: unknown, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        await requirePartner(ctx, partnerId);
        const keys = issueCredentials(ctx.pepper);
        await ctx.repositories.partners.rotateKeys(partnerId, {
          access_key: keys.access_key,
          secret_hash: keys.secret_hash,
          pepper_id: keys.pepper_id,
        });
        cli.print(
          cmd,
          { partner_id: partnerId, access_key: keys.access_key, secret_key: keys.secret_key },
          secretLines(partnerId, keys.access_key, keys.secret_key),
        );
      });
    });

  for (const [name, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    partner
      .command(name)
      .description(
        disabled
          ? "Disable a partner: no new tokens, and its existing tokens are refused at once"
          : "Re-enable a disabled partner",
      )
      .argument("<partner_id>", "partner to change")
      .action(async (partnerId: string, _opts: unknown, cmd: Command) => {
        await cli.withContext(cmd, async (ctx) => {
          if (!(await ctx.repositories.partners.setDisabled(partnerId, disabled))) {
            throw new CliError(`partner "${partnerId}" does not exist`, "not_found");
          }
          cli.print(cmd, { partner_id: partnerId, disabled }, `partner ${partnerId} ${name}d`);
        });
      });
  }

  partner
    .command("list")
    .description("List partners with their current access key and mapped companies (never secrets)")
    .action(async (_opts: unknown, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const partners = await ctx.repositories.partners.list();
        cli.print(
          cmd,
          { partners },
          partners.length === 0
            ? "no partners"
            : partners.map(
                (p) =>
                  `${p.partner_id}  ${p.disabled_at ? "disabled" : "enabled "}  ${p.access_key ?? "-"}  ${p.name}` +
                  `  companies: ${p.companies.join(",") || "-"}`,
              ),
        );
      });
    });
}
