import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("./index.ts", import.meta.url));

// The CLI imports the adapter for its schemas (`pricing --help` must start fast): the Fastify plugins load when
// the plugin is registered, not when the entry is imported.
describe("the package entry", () => {
  it("can be imported without loading Fastify or any of its plugins", () => {
    const script = `
      import { createRequire } from "node:module";
      const adapter = await import(${JSON.stringify(entry)});
      if (typeof adapter.rateLimitsSchema?.parse !== "function") throw new Error("entry not loaded");
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(loaded.filter((p) => /node_modules\\/(fastify|@fastify\\/(?!error\\/)[^/]+)\\//.test(p))));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual([]);
  });
});
