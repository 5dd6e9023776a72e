import type { Command } from "commander";
import type { ServerContext } from "../../context.js";
import type { CompanyRow } from "../../db/schema.js";
import { type CompanyEvent, settingsOf } from "../../repositories/companies.js";
import { CliError, type CliRuntime, displayName, requirePartner } from "../cli-runtime.js";

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

async function requireBoth(ctx: ServerContext, partnerId: string, companyId: string): Promise<void> {
  await requirePartner(ctx, partnerId);
  if (!(await ctx.repositories.companies.get(companyId)))
    throw new CliError(`company "${companyId}" does not exist`, "not_found");
}

const EXPLORATIONS = ["off", "cautious", "free"] as const;

/** A company as the CLI prints it: the settings as words and booleans, not the table's 0/1. */
function companyView<T extends CompanyRow>(
  row: T,
): Omit<T, "auto_approve_updates" | "force_rule" | "price_endings"> & ReturnType<typeof settingsOf> {
  return { ...row, ...settingsOf(row) };
}

function settingsLine(row: CompanyRow): string {
  const { price_endings: endings } = settingsOf(row);
  return (
    `exploration ${row.exploration}, auto-approve updates ${row.auto_approve_updates === 1}, ` +
    `force rule ${row.force_rule === 1}, price endings ${endings.length === 0 ? "none" : endings.join(",")}`
  );
}

function eventLine(event: CompanyEvent): string {
  return `  ${event.at}  ${event.field}: ${JSON.stringify(event.old)} -> ${JSON.stringify(event.new)}  by ${event.by}`;
}

function parseBoolean(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new CliError(`${flag} must be true or false`);
}

export function registerCompanyCommands(program: Command, cli: CliRuntime): void {
  const company = program.command("company").description("Manage companies and partner-company mappings");

  company
    .command("create")
    .description("Create a company")
    .requiredOption("--id <company_id>", "company id used by partners in requests")
    .requiredOption("--name <name>", "display name")
    .option("--timezone <zone>", "IANA time zone of the company's business day", "UTC")
    .option("--currency <code>", "default ISO 4217 currency", "EUR")
    .action(async (opts: { id: string; name: string; timezone: string; currency: string }, cmd: Command) => {
      const { companyIdSchema, currencySchema } = await import("@pricing/http-adapter");
      const id = companyIdSchema.safeParse(opts.id);
      if (!id.success) throw new CliError(`--id ${id.error.issues[0]?.message ?? "is invalid"}`);
      if (!currencySchema.safeParse(opts.currency).success) {
        throw new CliError("--currency must be an ISO 4217 code like EUR");
      }
      if (!isTimeZone(opts.timezone))
        throw new CliError(`--timezone "${opts.timezone}" is not an IANA time zone`);
      const name = displayName(opts.name);
      await cli.withContext(cmd, async (ctx) => {
        const row = await ctx.repositories.companies.create({
          company_id: id.data,
          name,
          timezone: opts.timezone,
          currency: opts.currency,
        });
        if (!row) throw new CliError(`company "${id.data}" already exists`, "conflict");
        cli.print(
          cmd,
          companyView(row),
          `company ${row.company_id} created (${row.timezone}, ${row.currency})`,
        );
      });
    });

  company
    .command("update")
    .description(
      "Change a company's learning settings (DESIGN §8), recorded in its settings history by `operator` (the console's changes by `console:<name>`); the next compute or nightly run uses them",
    )
    .requiredOption("--id <company_id>", "company")
    .option(
      "--exploration <mode>",
      "off: prices stay inside the range the history has seen; cautious (default): leave it by at most one grid " +
        "price beyond the prices held for a week; free: trust the model",
    )
    .option(
      "--auto-approve-updates <bool>",
      "true (default): a nightly refresh that passes the safety gate is approved; false: it waits in latest",
    )
    .option("--force-rule <bool>", "true: serve the rule at once, whatever the model (the kill switch)")
    .option(
      "--price-endings <list>",
      "comma-separated price endings (DESIGN §11), e.g. .99,.49 (trailing minor-unit digits) or 9 (last whole " +
        "digit); none clears them. Products with their own endings (products.csv) keep theirs",
    )
    .action(
      async (
        opts: {
          id: string;
          exploration?: string;
          autoApproveUpdates?: string;
          forceRule?: string;
          priceEndings?: string;
        },
        cmd: Command,
      ) => {
        const exploration = EXPLORATIONS.find((e) => e === opts.exploration);
        if (opts.exploration !== undefined && exploration === undefined) {
          throw new CliError(`--exploration must be one of ${EXPLORATIONS.join(", ")}`);
        }
        const autoApprove = parseBoolean("--auto-approve-updates", opts.autoApproveUpdates);
        const forceRule = parseBoolean("--force-rule", opts.forceRule);
        const endings =
          opts.priceEndings === undefined
            ? undefined
            : opts.priceEndings.trim().toLowerCase() === "none"
              ? []
              : opts.priceEndings.split(",");
        if (
          exploration === undefined &&
          autoApprove === undefined &&
          forceRule === undefined &&
          endings === undefined
        ) {
          throw new CliError(
            "nothing to change: give --exploration, --auto-approve-updates, --force-rule or --price-endings",
          );
        }
        const change = {
          ...(exploration === undefined ? {} : { exploration }),
          ...(autoApprove === undefined ? {} : { auto_approve_updates: autoApprove }),
          ...(forceRule === undefined ? {} : { force_rule: forceRule }),
          ...(endings === undefined ? {} : { price_endings: endings }),
        };
        const { updateCompanySettings } = await import("../../services/company-settings.js");
        const { OPERATOR } = await import("../../services/slot-actors.js");
        await cli.withContext(cmd, async (ctx) => {
          const { company: row, events } = await updateCompanySettings(ctx, opts.id, change, OPERATOR);
          cli.print(cmd, { ...companyView(row), events }, [
            `company ${row.company_id}: ${settingsLine(row)}`,
            ...(events.length === 0 ? ["  (nothing changed)"] : events.map(eventLine)),
          ]);
        });
      },
    );

  company
    .command("show")
    .description("Show a company, its learning settings and their newest recorded changes")
    .requiredOption("--id <company_id>", "company")
    .action(async (opts: { id: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const row = await ctx.repositories.companies.get(opts.id);
        if (!row) throw new CliError(`company "${opts.id}" does not exist`, "not_found");
        const { events, total } = await ctx.repositories.companies.events(opts.id, 20);
        cli.print(cmd, { ...companyView(row), events, total_events: total }, [
          `${row.company_id}  ${row.timezone}  ${row.currency}  ${row.name}`,
          settingsLine(row),
          `settings changes (${total}, newest first):`,
          ...(events.length === 0 ? ["  -"] : events.map(eventLine)),
        ]);
      });
    });

  company
    .command("map")
    .description("Let a partner reach a company")
    .requiredOption("--partner <partner_id>", "partner")
    .requiredOption("--company <company_id>", "company")
    .action(async (opts: { partner: string; company: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        await requireBoth(ctx, opts.partner, opts.company);
        await ctx.repositories.companies.map(opts.partner, opts.company);
        cli.print(
          cmd,
          { partner_id: opts.partner, company_id: opts.company, mapped: true },
          `${opts.company} mapped to ${opts.partner}`,
        );
      });
    });

  company
    .command("unmap")
    .description("Remove a partner's access to a company (takes effect on the next request)")
    .requiredOption("--partner <partner_id>", "partner")
    .requiredOption("--company <company_id>", "company")
    .action(async (opts: { partner: string; company: string }, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        await requireBoth(ctx, opts.partner, opts.company);
        if (!(await ctx.repositories.companies.unmap(opts.partner, opts.company))) {
          throw new CliError(`${opts.company} is not mapped to ${opts.partner}`, "not_found");
        }
        cli.print(
          cmd,
          { partner_id: opts.partner, company_id: opts.company, mapped: false },
          `${opts.company} unmapped from ${opts.partner}`,
        );
      });
    });

  company
    .command("list")
    .description("List companies and the partners mapped to each")
    .action(async (_opts: unknown, cmd: Command) => {
      await cli.withContext(cmd, async (ctx) => {
        const companies = await ctx.repositories.companies.list();
        cli.print(
          cmd,
          { companies: companies.map(companyView) },
          companies.length === 0
            ? "no companies"
            : companies.map(
                (c) =>
                  `${c.company_id}  ${c.timezone}  ${c.currency}  ${c.name}  partners: ${c.partners.join(",") || "-"}  ` +
                  settingsLine(c),
              ),
        );
      });
    });
}
