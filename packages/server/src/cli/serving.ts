import { CliError } from "./cli-runtime.js";

/** Parses `--port`; 0 asks the OS for a free port. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port must be 0..65535, got ${value}`);
  return port;
}

/** Resolves on SIGINT/SIGTERM so a serving command can close the server cleanly. */
export function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
