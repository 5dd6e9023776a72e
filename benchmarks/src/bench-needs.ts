import { existsSync } from "node:fs";
import path from "node:path";
import { postgresTestsEnabled, TEST_PG_URL } from "@pricing/server/testing";
import type { Need } from "./bench-entries.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

function onPath(command: string): boolean {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir !== "" && existsSync(path.join(dir, command)));
}

/** Why `need` is missing on this machine, or null when it is there. */
async function missing(need: Need): Promise<string | null> {
  switch (need) {
    case "pg":
      // As the tests decide: always under CI (a server that is down then fails the run loudly), else when reachable.
      return (await postgresTestsEnabled()) ? null : `no PostgreSQL at ${new URL(TEST_PG_URL).host}`;
    case "wrk":
      return onPath("wrk") ? null : "no wrk on PATH (apt-get install wrk)";
    case "build":
      return existsSync(path.join(ROOT, "packages/server/dist/cli.js")) ? null : "no build (pnpm build)";
  }
}

/** The reasons the entry cannot run here, one per missing need; empty when it can. */
export async function missingNeeds(needs: readonly Need[]): Promise<string[]> {
  const reasons = await Promise.all(needs.map(missing));
  return reasons.filter((r): r is string => r !== null);
}
