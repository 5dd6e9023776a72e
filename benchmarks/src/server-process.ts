/**
 * The real server as a child process for the benchmarks that load it (`pnpm bench:http`, `pnpm bench:import`): a data
 * dir made by `pricing init`'s code path, and `pricing serve` on a free port from the TypeScript sources.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { runCli } from "@pricing/server";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** `pricing init --data-dir dataDir`: what a new operator runs first; every other command refuses a dir without it. */
export async function initDataDir(dataDir: string): Promise<void> {
  let err = "";
  const code = await runCli(["init", "--data-dir", dataDir], {
    io: { out: () => undefined, err: (t) => (err += t) },
    env: {},
  });
  if (code !== 0) throw new Error(`pricing init failed: ${err}`);
}

/**
 * Starts `pricing serve --port 0` on `dataDir` and resolves with its URL. Our own `PRICING_*` settings are dropped
 * (the server uses the secrets generated while seeding); `env` adds the benchmark's (`PRICING_METRICS_PORT: "0"`
 * gives a `metricsUrl`). With `profileDir` the server
 * runs under `node --cpu-prof` and writes its profile there when it stops.
 */
export async function startServerProcess(
  dataDir: string,
  options: { profileDir?: string | undefined; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; url: string; metricsUrl: string | null }> {
  const profileDir = options.profileDir;
  const serve = [path.join(ROOT, "packages/server/src/cli.ts"), "serve", "--port", "0", "--json"];
  // The `@pricing/source` condition runs the workspace packages from their TypeScript source, not dist/.
  const fromSource = ["--conditions=@pricing/source", ...serve];
  // With a profile directory the server runs under `node --cpu-prof` (tsx as a loader), written when it stops.
  const [command, args] = profileDir
    ? [process.execPath, ["--cpu-prof", "--cpu-prof-dir", profileDir, "--import", "tsx", ...fromSource]]
    : [path.join(ROOT, "node_modules/.bin/tsx"), fromSource];
  const logFile = path.join(dataDir, "server.log");
  const logFd = openSync(logFile, "a", 0o600);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      // Our own settings are dropped so the server uses the secrets generated while seeding.
      ...Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_"),
        ),
      ),
      PRICING_DATA_DIR: dataDir,
      // The limiter still runs on every request; only its thresholds are raised above what one client sends.
      PRICING_RATE_LIMITS: JSON.stringify({
        tokenPerKey: { max: 1_000_000, windowMs: 60_000 },
        tokenPerAddress: { max: 1_000_000, windowMs: 60_000 },
        dataPerPartner: { max: 1_000_000, windowMs: 60_000 },
      }),
      ...options.env,
    },
    // Its stdout (the URL, then a JSON log line per request) goes to a file, as in a deployment writing logs to
    // disk. Through a pipe, a moment's lag of the reader fills it, and pino's synchronous destination then blocks
    // the event loop for 100 ms (sonic-boom's EAGAIN back-off): the tail would measure the reader.
    stdio: ["ignore", logFd, "inherit"],
  });
  const started = await new Promise<{ url: string; metricsUrl: string | null }>((resolve, reject) => {
    const since = Date.now();
    const onExit = (code: number | null) => reject(new Error(`server exited with ${code}`));
    child.once("exit", onExit);
    const poll = setInterval(() => {
      // The --json document spans several lines; the url lines alone are enough.
      const printed = readFileSync(logFile, "utf8");
      const match = /"url":\s*"([^"]+)"/.exec(printed);
      if (match?.[1] || Date.now() - since > 30_000) {
        clearInterval(poll);
        child.off("exit", onExit);
        const metrics = /"metrics_url":\s*"([^"]+)"/.exec(printed);
        if (match?.[1]) resolve({ url: match[1], metricsUrl: metrics?.[1] ?? null });
        else reject(new Error("server did not start in 30 s"));
      }
    }, 100);
  });
  closeSync(logFd);
  return { child, ...started };
}

/** Stops a server started by {@link startServerProcess} and waits for it to exit. */
export async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
