import { createServer } from "node:net";

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

/**
 * Fails with the listen error when `host:port` cannot be bound, so a command can refuse before it changes
 * anything (the demo rotates its keys only when it will serve). Port 0 always binds.
 */
export function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(new Error(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
