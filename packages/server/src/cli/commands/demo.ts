import type { Command } from "commander";
import { type CliRuntime, settingOption } from "../cli-runtime.js";
import { assertPortFree, untilSignal } from "../serving.js";

export function registerDemoCommand(program: Command, cli: CliRuntime): void {
  program
    .command("demo")
    .description(
      "Seed a demo partner and three companies (two synthetic, one of real sales; if absent), print keys and curl lines, and serve",
    )
    .addOption(settingOption("host"))
    .addOption(settingOption("port"))
    .addOption(settingOption("metricsPort"))
    .addOption(settingOption("consolePort"))
    .option("--no-serve", "seed and print, then exit")
    .action(async (opts: { serve: boolean }, cmd: Command) => {
      // The demo's own defaults (a short training, quiet logs) are the config's `commandDefaults`.
      const config = cli.config(cmd);
      const { demoCurlLines, seedDemo } = await import("../../demo/demo-seed.js");
      const json = cli.globals(cmd).json === true;
      const progress = (line: string) => {
        if (!json) cli.io.err(`${line}\n`);
      };
      // Seeding an existing demo rotates its keys: a port in use must fail before that, not after.
      if (opts.serve) {
        await assertPortFree(config.host, config.port);
        if (config.consolePort !== undefined) await assertPortFree(config.consoleHost, config.consolePort);
      }
      const seeded = await cli.withContext(cmd, (ctx) => seedDemo(ctx, progress), { create: true });
      const show = (url: string, metricsUrl: string | null, consoleUrl: string | null) => {
        const companies = seeded.companies;
        cli.print(
          cmd,
          {
            url,
            metrics_url: metricsUrl,
            console_url: consoleUrl,
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
            `companies:   ${companies.join(", ")} (the second sells tight stock by a season end; the third is`,
            `             real sales: pnpm -s pricing backtest --company ${companies[2] ?? ""} --from 2017-11-01)`,
            "",
            `Try it (API docs: ${url}/public/v1/docs):`,
            "",
            ...demoCurlLines(url, seeded, companies[0] ?? "demo-grocer"),
            "",
            `Swap company_id=${companies[1] ?? ""} to see tight-stock pricing. Ctrl-C stops the server.`,
            ...(metricsUrl === null ? [] : [`Prometheus metrics: ${metricsUrl}`]),
            ...(consoleUrl === null
              ? []
              : [
                  `Operator console: ${consoleUrl} (${config.consoleToken === undefined ? "log in with your name: loopback only, no token" : "log in with your name and PRICING_CONSOLE_TOKEN"})`,
                ]),
          ],
        );
      };
      if (!opts.serve) {
        show(`http://${config.host}:${config.port}`, null, null);
        return;
      }
      const { startServerWithBatch } = await import("../../process-roles.js");
      const serving = await startServerWithBatch(config);
      show(serving.server.url, serving.server.metricsUrl, serving.server.consoleUrl);
      await untilSignal();
      await serving.close();
    });
}
