import { type Command, Option } from "commander";
import { CliError, type CliRuntime, requireDatabase, settingOption } from "../cli-runtime.js";
import { untilSignal } from "../serving.js";

/** A port number from a flag. */
function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port must be 0..65535, got "${text}"`);
  return port;
}

export function registerWorkerCommand(program: Command, cli: CliRuntime): void {
  program
    .command("worker")
    .description(
      "Run a worker only (PostgreSQL): trainings and the nightly batch from the shared pg-boss queue, the schedule, and webhook deliveries",
    )
    .addOption(settingOption("pricing.workerConcurrency"))
    .addOption(
      new Option("--port <p>", "serve /healthz and /metrics on this port (on PRICING_HOST); 0 picks one"),
    )
    .action(async (opts: { port?: string }, cmd: Command) => {
      const config = cli.config(cmd);
      if (config.databaseUrl === undefined) {
        throw new CliError(
          "a worker needs PRICING_DATABASE_URL (PostgreSQL); on SQLite `pricing serve` runs the jobs itself",
          "invalid_config",
        );
      }
      await requireDatabase(config);
      const port = opts.port === undefined ? undefined : portOf(opts.port);
      const [
        { createServerContext },
        { startJobs },
        { startMetricsListener },
        { startWebhookDispatcher },
        pino,
      ] = await Promise.all([
        import("../../context.js"),
        import("../../jobs/start-jobs.js"),
        import("../../metrics/metrics-listener.js"),
        import("../../webhooks/dispatcher.js"),
        import("pino"),
      ]);
      const logger = pino.default(
        { level: config.logLevel },
        pino.default.destination({ dest: 1, sync: false }),
      );
      const ctx = await createServerContext(config, { logger });
      try {
        const concurrency = config.pricing.workerConcurrency;
        const schedule = await startJobs(ctx, { concurrency });
        // Deliveries are claimed row by row, so every worker and API process may send them side by side.
        const stopWebhooks = startWebhookDispatcher(ctx);
        const listener =
          port === undefined
            ? undefined
            : await startMetricsListener(ctx.metrics.registry, config.host, port, {
                health: async () => {
                  const { pingDatabase } = await import("../../db/database.js");
                  return pingDatabase(ctx.db);
                },
              });
        // Listening before saying so: whoever waits for the line may stop the worker at once.
        const signalled = untilSignal();
        logger.info(
          {
            concurrency,
            metrics_url: listener?.url ?? null,
            next_batch: schedule.nextRun()?.toISOString() ?? null,
          },
          "worker started",
        );
        await signalled;
        logger.info("worker stopping");
        await schedule.stop();
        await stopWebhooks();
        await listener?.close();
      } finally {
        await ctx.close();
      }
    });
}
