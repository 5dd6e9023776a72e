import type { Command } from "commander";
import { demoCurlLines, seedDemo } from "../../pricing/demo-seed.js";
import { createPricingRuntime } from "../../pricing/pricing-runtime.js";
import type { CliRuntime } from "../cli-runtime.js";
import { parsePort, untilSignal } from "../serving.js";

/** Training budget of the demo, so that a first start takes seconds (PRICING_TRAIN_SECONDS overrides). */
const DEMO_TRAIN_SECONDS = 3;

export function registerDemoCommand(program: Command, cli: CliRuntime): void {
  program
    .command("demo")
    .description("Seed a demo partner and two companies (if absent), print keys and curl lines, and serve")
    .option("--host <host>", "interface to listen on (default PRICING_HOST or 127.0.0.1)")
    .option("--port <port>", "port to listen on (default PRICING_PORT or 8080)", parsePort)
    .option("--no-serve", "seed and print, then exit")
    .action(async (opts: { host?: string; port?: number; serve: boolean }, cmd: Command) => {
      const base = cli.config(cmd);
      // A readable console for a first run: request logs only when asked for (PRICING_LOG_LEVEL=info).
      const config = {
        ...base,
        host: opts.host ?? base.host,
        port: opts.port ?? base.port,
        logLevel: cli.env.PRICING_LOG_LEVEL ? base.logLevel : ("warn" as const),
      };
      const settings = cli.env.PRICING_TRAIN_SECONDS ? {} : { trainSeconds: DEMO_TRAIN_SECONDS };
      const json = cli.globals(cmd).json === true;
      const progress = (line: string) => {
        if (!json) cli.io.err(`${line}\n`);
      };
      const seeded = await cli.withContext(cmd, async (ctx) => {
        const runtime = createPricingRuntime(ctx, { env: cli.env, settings });
        try {
          return await seedDemo(ctx, runtime, progress);
        } finally {
          runtime.close();
        }
      });
      const show = (url: string) => {
        const companies = seeded.companies;
        cli.print(
          cmd,
          {
            url,
            data_dir: config.dataDir,
            partner_id: seeded.partner_id,
            access_key: seeded.access_key,
            secret_key: seeded.secret_key,
            companies,
            batch: seeded.batch,
            curl: demoCurlLines(url, seeded, companies[0] ?? "demo-grocer"),
          },
          [
            "",
            `Demo data in ${config.dataDir}${seeded.created ? "" : " (existing; the demo partner got a fresh key pair)"}`,
            `partner_id:  ${seeded.partner_id}`,
            `access_key:  ${seeded.access_key}`,
            `secret_key:  ${seeded.secret_key}`,
            `companies:   ${companies.join(", ")} (the second sells tight stock by a season end)`,
            "",
            `Try it (API docs: ${url}/public/v1/docs):`,
            "",
            ...demoCurlLines(url, seeded, companies[0] ?? "demo-grocer"),
            "",
            `Swap company_id=${companies[1] ?? ""} to see tight-stock pricing. Ctrl-C stops the server.`,
          ],
        );
      };
      if (!opts.serve) {
        show(`http://${config.host}:${config.port}`);
        return;
      }
      const { startServerWithBatch } = await import("../../pricing/serve-with-batch.js");
      const serving = await startServerWithBatch(config, { env: cli.env, settings });
      show(serving.server.url);
      await untilSignal();
      await serving.close();
    });
}
