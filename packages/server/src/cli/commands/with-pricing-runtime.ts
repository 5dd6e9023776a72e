import type { Command } from "commander";
import type { PricingRuntime } from "../../pricing/pricing-runtime.js";
import type { ServerContext } from "../../server-context.js";
import type { CliRuntime } from "../cli-runtime.js";

/**
 * Runs a pricing command against the command's data dir: the runtime is always closed (its training threads and
 * loaded policies would otherwise keep the process alive), and the API's expected failures leave as CLI errors.
 */
export async function withPricingRuntime<T>(
  cli: CliRuntime,
  cmd: Command,
  fn: (runtime: PricingRuntime, ctx: ServerContext) => Promise<T>,
): Promise<T> {
  const [{ createPricingRuntime }, { cliErrorOf }] = await Promise.all([
    import("../../pricing/pricing-runtime.js"),
    import("./pricing-cli-errors.js"),
  ]);
  return cli.withContext(cmd, async (ctx) => {
    const runtime = createPricingRuntime(ctx);
    try {
      return await fn(runtime, ctx);
    } catch (error) {
      throw cliErrorOf(error);
    } finally {
      runtime.close();
    }
  });
}
