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
      // Loaded on demand so the other commands start without pg-boss.
      const { startWorker } = await import("../../process-roles.js");
      const worker = await startWorker(config, port === undefined ? {} : { port });
      try {
        // Listening before saying so: whoever waits for the line may stop the worker at once.
        const signalled = untilSignal();
        worker.ctx.logger.info(
          {
            concurrency: config.pricing.workerConcurrency,
            metrics_url: worker.metricsUrl,
            next_batch: worker.schedule.nextRun()?.toISOString() ?? null,
          },
          "worker started",
        );
        await signalled;
        worker.ctx.logger.info("worker stopping");
      } finally {
        await worker.close();
      }
    });
}
