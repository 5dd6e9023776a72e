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
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
