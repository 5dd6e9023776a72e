import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/**
 * Where a Chromium is: `CHROMIUM_PATH`, else Debian's package (`apt-get install chromium`, which `.ci/run`
 * installs). Playwright's own browser download cannot run here (it fetches from outside the package registries),
 * so `playwright-core` drives the system's browser.
 */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return (
    candidates.find((path): path is string => path !== undefined && path !== "" && existsSync(path)) ?? null
  );
}

export interface HeadlessBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * A headless Chromium with a fresh profile, nothing of its own on the network (no component updates, sync,
 * QUIC or background requests), removed when closed.
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<HeadlessBrowser> {
  const executablePath = chromiumPath();
  if (executablePath === null)
    throw new Error("no Chromium: apt-get install chromium (or set CHROMIUM_PATH)");
  const profile = await mkdtemp(join(tmpdir(), "pricing-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: options.viewport ?? { width: 1280, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
