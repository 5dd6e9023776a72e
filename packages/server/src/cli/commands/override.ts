import type { Command } from "commander";
import { OPERATOR } from "../../services/slot-actors.js";
import { CliError, type CliRuntime } from "../cli-runtime.js";

const money = (x: number | null) => (x === null ? "-" : String(x));

/** Reads a price flag; undefined when absent. */
function priceFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0)) {
    throw new CliError(`${flag} must be a positive number, got "${value}"`, "validation_error");
  }
  return n;
}

/**
 * `pricing override add|list|remove` (DESIGN §11): the partner API's overrides, through the same service, made by
 * `operator`.
 */
export function registerOverrideCommands(program: Command, cli: CliRuntime): void {
  const override = program
    .command("override")
    .description("Pin or narrow a product's price over dates, as a partner's POST /v2/overrides does");

  override
    .command("add")
    .description(
      "Pin a price (--price) or narrow the guardrails (--min-price / --max-price) of a product from --from to --to; " +
        "runs computed after it apply it",
    )
    .requiredOption("--company <company_id>", "company")
    .requiredOption("--product <product_id>", "product")
    .requiredOption("--from <date>", "first date, YYYY-MM-DD (not before the company's today)")
    .option("--to <date>", "last date, YYYY-MM-DD (default: --from)")
    .option("--price <price>", "the pinned price: printable in the product's currency and endings")
    .option("--min-price <price>", "the lowest price the engine may choose")
    .option("--max-price <price>", "the highest price the engine may choose")
    .option("--note <text>", "free text")
    .option("--recompute", "also persist a fresh on-demand run that applies it", false)
    .action(
      async (
        opts: {
          company: string;
          product: string;
          from: string;
          to?: string;
          price?: string;
          minPrice?: string;
          maxPrice?: string;
          note?: string;
          recompute: boolean;
        },
        cmd: Command,
      ) => {
        const price = priceFlag("--price", opts.price);
        const minPrice = priceFlag("--min-price", opts.minPrice);
        const maxPrice = priceFlag("--max-price", opts.maxPrice);
        const { createOverridesBodySchema } = await import("@pricing/http-adapter");
        const { validatedInput } = await import("../../services/validated-input.js");
        const { createOverrides } = await import("../../services/overrides.js");
        const body = validatedInput(
          createOverridesBodySchema,
          {
            company_id: opts.company,
            product_id: opts.product,
            start_date: opts.from,
            end_date: opts.to ?? opts.from,
            ...(price === undefined ? {} : { price }),
            ...(minPrice === undefined ? {} : { min_price: minPrice }),
            ...(maxPrice === undefined ? {} : { max_price: maxPrice }),
            ...(opts.note === undefined ? {} : { note: opts.note }),
          },
          "override",
        );
        await cli.withContext(cmd, async (ctx) => {
          const created = await createOverrides(ctx, body, { recompute: opts.recompute }, OPERATOR);
          cli.print(cmd, created, [
            ...created.overrides.map(
              (o) =>
                `override ${o.override_id}: ${o.product_id} ${o.start_date} .. ${o.end_date}, ` +
                (o.price === null
                  ? `between ${money(o.min_price)} and ${money(o.max_price)}`
                  : `at ${o.price}`),
            ),
            ...(created.run_id === null ? [] : [`run ${created.run_id} persisted`]),
          ]);
        });
      },
    );

  override
    .command("list")
    .description("A company's overrides, by product then start date")
    .requiredOption("--company <company_id>", "company")
    .option("--product <product_id>", "only this product's")
    .action(async (opts: { company: string; product?: string }, cmd: Command) => {
      const { listOverrides } = await import("../../services/overrides.js");
      await cli.withContext(cmd, async (ctx) => {
        const listed = await listOverrides(ctx, {
          company_id: opts.company,
          ...(opts.product === undefined ? {} : { product_id: opts.product }),
          limit: 100,
          offset: 0,
        });
        cli.print(cmd, listed, [
          `${listed.total} override(s) of ${listed.company_id}`,
          ...listed.overrides.map(
            (o) =>
              `  ${o.override_id}  ${o.product_id}  ${o.start_date} .. ${o.end_date}  ` +
              (o.price === null ? `${money(o.min_price)} .. ${money(o.max_price)}` : `pin ${o.price}`) +
              (o.note === null ? "" : `  (${o.note})`),
          ),
        ]);
      });
    });

  override
    .command("remove")
    .description("Remove an override; runs computed after no longer apply it")
    .requiredOption("--company <company_id>", "company")
    .requiredOption("--id <override_id>", "override")
    .action(async (opts: { company: string; id: string }, cmd: Command) => {
      const { deleteOverride } = await import("../../services/overrides.js");
      await cli.withContext(cmd, async (ctx) => {
        await deleteOverride(ctx, { company_id: opts.company, override_id: opts.id });
        cli.print(cmd, { override_id: opts.id, removed: true }, [`override ${opts.id} removed`]);
      });
    });
}
