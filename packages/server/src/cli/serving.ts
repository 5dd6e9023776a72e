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
