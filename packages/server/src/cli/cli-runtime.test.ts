import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCliRuntime } from "./cli-runtime.js";
import { runCli } from "./program.js";

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, io: { out: (t) => out.push(t), err: (t) => err.push(t) } });
  return { code, out: out.join(""), err: err.join("") };
}

describe("the CLI's configuration", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pricing-cli-config-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lets --data-dir win over PRICING_DATA_DIR", async () => {
    const flagged = join(dir, "flag");
    const fromEnv = join(dir, "env");
    const result = await run(["init", "--json", "--data-dir", flagged], {
      PRICING_DATA_DIR: fromEnv,
    });
    expect(result.code, result.err).toBe(0);
    expect(existsSync(join(flagged, "pricing.sqlite"))).toBe(true);
    expect(existsSync(fromEnv)).toBe(false);
  });

  it("warns on stderr about a deprecated variable, and uses it", async () => {
    expect((await run(["init", "--data-dir", dir], {})).code).toBe(0);
    const result = await run(["batch", "status", "--json", "--data-dir", dir], {
      PRICING_NIGHTLY_CRON: "30 1 * * *",
    });
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ schedule: "30 1 * * *" });
    expect(result.err).toBe(
      "warning: PRICING_NIGHTLY_CRON is deprecated and will stop working in the next release: rename it to PRICING_BATCH_CRON\n",
    );
  });

  it("warns once however often a command reads its configuration", () => {
    const err: string[] = [];
    const cli = createCliRuntime(
      { out: () => {}, err: (t) => err.push(t) },
      { PRICING_NIGHTLY_CRON: "30 1 * * *" },
    );
    const cmd = new Command("demo");
    expect(cli.config(cmd)).toBe(cli.config(cmd));
    expect(err).toHaveLength(1);
  });

  it("names a bad flag value with its setting", async () => {
    const result = await run(["serve", "--port", "http", "--data-dir", dir], {});
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/invalid configuration: port \(PRICING_PORT, --port\)/);
  });
});
