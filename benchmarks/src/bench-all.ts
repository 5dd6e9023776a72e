/**
 * `pnpm bench`: every benchmark in its quick mode, one after the other, each printing its own table.
 * The full runs are `pnpm bench:policy`, `pnpm bench:closed-loop`, `pnpm bench:inference`, `pnpm bench:http` and
 * `pnpm bench:real`.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BENCHES = [
  "bench-policy.ts",
  "bench-closed-loop.ts",
  "bench-inference.ts",
  "bench-http.ts",
  "bench-real.ts",
];

let failed = 0;
for (const file of BENCHES) {
  process.stdout.write(`\n## ${file.replace(".ts", "")} --quick\n\n`);
  const script = fileURLToPath(new URL(file, import.meta.url));
  const result = spawnSync(
    process.execPath,
    ["--conditions=@pricing/source", "--import", "tsx", script, "--quick"],
    { stdio: "inherit" },
  );
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
