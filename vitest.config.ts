import { defineConfig } from "vitest/config";

// Tests run the TypeScript source of the workspace packages: their `exports` send the `@pricing/source`
// condition to `src/index.ts` (plain Node gets `dist/`). The rest is Vite's default list for server code.
const conditions = ["@pricing/source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "benchmarks/src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at a time on CI's two cores: most files wait on servers and child processes they start, so
    // one file at a time left a core idle and the suite near 20 minutes.
    maxWorkers: 2,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
