import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";
import { parsePort, untilSignal } from "../serving.js";

export function registerServeCommand(program: Command, cli: CliRuntime): void {
  program
    .command("serve")
    .description(
      "Run the API server (PRICING_JWT_SECRET, PUBLIC_API_CORS_ORIGINS and others from the environment)",
    )
    .option("--host <host>", "interface to listen on (default PRICING_HOST or 127.0.0.1)")
    .option("--port <port>", "port to listen on (default PRICING_PORT or 8080)", parsePort)
    .action(async (opts: { host?: string; port?: number }, cmd: Command) => {
      const base = cli.config(cmd);
      const config = { ...base, host: opts.host ?? base.host, port: opts.port ?? base.port };
      // Loaded on demand so the other commands start without Fastify and the OpenAPI stack.
      const { startServerWithBatch } = await import("../../pricing/serve-with-batch.js");
      const serving = await startServerWithBatch(config, { env: cli.env });
      const server = serving.server;
      cli.print(
        cmd,
        {
          url: server.url,
          data_dir: config.dataDir,
          next_batch: serving.scheduler.nextRun()?.toISOString() ?? null,
        },
        `listening on ${server.url}; nightly batch next at ${serving.scheduler.nextRun()?.toISOString() ?? "-"}`,
      );
      await untilSignal();
      await serving.close();
    });
}
