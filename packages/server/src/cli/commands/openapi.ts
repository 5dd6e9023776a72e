import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import type { CliRuntime } from "../cli-runtime.js";

export function registerOpenApiCommand(program: Command, cli: CliRuntime): void {
  program
    .command("openapi")
    .description(
      "Print the OpenAPI 3.1 document the server serves at /public/v1/openapi.json (no server needed)",
    )
    .option("--out <file>", "write it to a file instead of stdout")
    .option("--server-url <url>", "base URL to put in `servers` (default /public/v1)")
    .action(async (opts: { out?: string; serverUrl?: string }, cmd: Command) => {
      const { renderOpenApiDocument } = await import("@pricing/http-adapter");
      const doc = await renderOpenApiDocument(opts.serverUrl ? { serverUrl: opts.serverUrl } : {});
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (opts.out) {
        await writeFile(opts.out, text);
        cli.print(cmd, { written: opts.out }, `wrote ${opts.out}`);
      } else {
        cli.io.out(text);
      }
    });
}
