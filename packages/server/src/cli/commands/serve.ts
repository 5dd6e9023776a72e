import type { Command } from "commander";
import { type CliRuntime, settingOption } from "../cli-runtime.js";
import { untilSignal } from "../serving.js";

export function registerServeCommand(program: Command, cli: CliRuntime): void {
  program
    .command("serve")
    .description(
      "Run the API server with an embedded worker and the nightly schedule; on PostgreSQL `--workers 0` runs the API only (settings from the environment: docs/configuration.md)",
    )
    .addOption(settingOption("host"))
    .addOption(settingOption("port"))
    .addOption(settingOption("metricsPort"))
    .addOption(settingOption("consolePort"))
    .addOption(settingOption("pricing.workers"))
    .action(async (_opts: unknown, cmd: Command) => {
      const config = cli.config(cmd);
      // Loaded on demand so the other commands start without Fastify and the OpenAPI stack.
      const { startServerWithBatch } = await import("../../process-roles.js");
      const serving = await startServerWithBatch(config);
      const server = serving.server;
      cli.print(
        cmd,
        {
          url: server.url,
          metrics_url: server.metricsUrl,
          console_url: server.consoleUrl,
          data_dir: config.dataDir,
          next_batch: serving.schedule.nextRun()?.toISOString() ?? null,
        },
        [
          `listening on ${server.url}; nightly batch next at ${serving.schedule.nextRun()?.toISOString() ?? "-"}`,
          ...(server.metricsUrl === null ? [] : [`metrics at ${server.metricsUrl}`]),
          ...(server.consoleUrl === null ? [] : [`operator console at ${server.consoleUrl}`]),
        ],
      );
      await untilSignal();
      await serving.close();
    });
}
