import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ConfigInput,
  loadConfig,
  type PricingSettingsInput,
  type RunningServer,
  type ServerContext,
  startServer,
} from "@pricing/server";
import type { Page } from "playwright-core";

export interface ConsoleFixture {
  server: RunningServer;
  ctx: ServerContext;
  consoleUrl: string;
  close(): Promise<void>;
}

/**
 * The real server with its console on free loopback ports over a fresh data dir, seeded by `seed` (through the
 * context, as an operator's commands would); `now` fixes the clock, so the pages show the same days every time.
 */
export async function startConsoleFixture(options: {
  now?: string;
  pricing?: PricingSettingsInput;
  server?: Omit<ConfigInput, "pricing" | "dataDir">;
  seed: (ctx: ServerContext) => Promise<void>;
}): Promise<ConsoleFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-console-bench-"));
  const fixed = options.now === undefined ? undefined : Date.parse(options.now);
  const config = loadConfig(
    {},
    {
      ...options.server,
      dataDir,
      port: 0,
      consolePort: 0,
      logLevel: "silent",
      pricing: options.pricing ?? {},
    },
  );
  const server = await startServer(config, fixed === undefined ? {} : { clock: () => new Date(fixed) });
  try {
    await options.seed(server.ctx);
  } catch (error) {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    server,
    ctx: server.ctx,
    consoleUrl: server.consoleUrl ?? "",
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Logs `operator` in through the console's form in `page`; the page ends on `next`. */
export async function logIn(page: Page, consoleUrl: string, operator: string, next = "/"): Promise<void> {
  await page.goto(`${consoleUrl}/login?next=${encodeURIComponent(next)}`);
  await page.fill("input[name=operator]", operator);
  await page.click("#login-form button[type=submit]");
  await page.waitForURL(`${consoleUrl}${next}`);
}
