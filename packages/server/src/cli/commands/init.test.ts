import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../program.js";

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env: {}, io: { out: (t) => out.push(t), err: (t) => err.push(t) } });
  return { code, out: out.join(""), err: err.join("") };
}

describe("pricing init and the data dir check", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pricing-init-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a data dir with no database, naming the resolved path, and creates nothing", async () => {
    const typo = join(dir, "dta");
    for (const argv of [
      ["partner", "list"],
      ["company", "create", "--id", "c", "--name", "C"],
      ["batch", "status"],
      ["db", "migrate"],
    ]) {
      const result = await run([...argv, "--data-dir", typo]);
      expect(result.code, argv.join(" ")).toBe(1);
      expect(result.err).toContain(join(typo, "pricing.sqlite"));
    }
    expect(existsSync(typo)).toBe(false);

    // A relative dir is named as resolved against the working directory.
    const relative = await run(["partner", "list", "--data-dir", "no-such-pricing-dir"]);
    expect(relative.code).toBe(1);
    expect(relative.err).toContain(join(resolve("no-such-pricing-dir"), "pricing.sqlite"));
  });

  it("creates the data dir and its database, idempotently; then commands run", async () => {
    const dataDir = join(dir, "data");
    const first = await run(["init", "--json", "--data-dir", dataDir]);
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ data_dir: dataDir, database: join(dataDir, "pricing.sqlite") });
    const created = await run(["partner", "create", "--name", "Acme", "--json", "--data-dir", dataDir]);
    expect(created.code, created.err).toBe(0);

    const again = await run(["init", "--json", "--data-dir", dataDir]);
    expect(again.code, again.err).toBe(0);
    const listed = await run(["partner", "list", "--json", "--data-dir", dataDir]);
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).partners).toHaveLength(1);
  });
});
