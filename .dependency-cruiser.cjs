// Dependency rules, checked by `pnpm lint` (DESIGN.md §1, STYLE.md "Distilled for us" 1-2).
// `depcruise --output-type err-long` prints each violation with its rule's comment, which says why the rule exists.

/** Test code: may import anything (fixtures, other packages through their entry, devDependencies). */
const TEST = ["^test/", "\\.test\\.ts$", "/test-support/"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "A file cycle means neither file can be read, tested or moved without the other. Type-only imports " +
        "count too (tsPreCompilationDeps): a type cycle is the same tangle of concepts, only erased at run time.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      comment:
        "An import that cannot be resolved escapes every other rule. Deep imports such as " +
        "`@pricing/engine/src/...` land here (each package's `exports` offers only its entry), and so does a " +
        "workspace package the importer does not declare in its package.json (pnpm links only declared ones).",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "only-through-public-entry",
      severity: "error",
      comment:
        "A workspace package is used through `@pricing/<pkg>` (its src/index.ts), never through a relative path " +
        "into its files: what index.ts exports is the surface its owner keeps stable. Test helpers have their own " +
        "entry (`@pricing/<pkg>/testing`, src/testing.ts), for tests and benchmarks only.",
      from: { path: "^(packages/[^/]+|benchmarks|test)/" },
      to: {
        path: "^packages/[^/]+/",
        pathNot: ["^$1/", "^packages/[^/]+/src/index\\.ts$", "^packages/[^/]+/src/testing\\.ts$"],
      },
    },
    {
      name: "testing-entry-for-tests-and-benchmarks",
      severity: "error",
      comment:
        "`@pricing/<pkg>/testing` holds helpers for test suites (a test database, its secrets): shipped code that " +
        "imported them would run against test settings.",
      from: { pathNot: [...TEST, "^benchmarks/"] },
      to: { path: "^packages/[^/]+/src/testing\\.ts$" },
    },
    {
      name: "standalone-packages-import-nothing-of-ours",
      severity: "error",
      comment:
        "engine, policy-store and http-adapter are libraries that run on their own (DESIGN.md §1): the engine " +
        "and the store in an offline script, the adapter in a host's Fastify server with the host's services.",
      from: { path: "^packages/(engine|policy-store|http-adapter)/", pathNot: TEST },
      to: { path: "^(packages|benchmarks|test)/", pathNot: "^packages/$1/" },
    },
    {
      name: "server-composes-engine-store-adapter",
      severity: "error",
      comment:
        "The server is the composition root: it may use engine, policy-store and http-adapter, and nothing " +
        "depends on it but tests, benchmarks and the client's code generation (DESIGN.md §1).",
      from: { path: "^packages/server/", pathNot: TEST },
      to: { path: "^packages/", pathNot: "^packages/(server|engine|policy-store|http-adapter)/" },
    },
    {
      name: "client-runtime-imports-no-workspace-package",
      severity: "error",
      comment:
        "The partner client ships alone to partners: at run time it needs none of our packages. Only its " +
        "code generation (src/codegen/, a build step) reads the server's OpenAPI document.",
      from: { path: "^packages/client/", pathNot: [...TEST, "^packages/client/src/codegen/"] },
      to: { path: ["^packages/(?!client/)", "^packages/client/src/codegen/"] },
    },
    {
      name: "server-services-below-training-below-jobs",
      severity: "error",
      comment:
        "Inside the server, services/ (one operation or read each) sit below training/ (admission and runs of a " +
        "training), which sits below jobs/ (queued and scheduled work): a lower layer never imports a higher one, " +
        "so a training is admitted in one place whoever asks for it and no folder cycle can return.",
      from: { path: "^packages/server/src/(services|training)/", pathNot: TEST },
      to: { path: "^packages/server/src/(jobs|console|cli)/" },
    },
    {
      name: "server-services-do-not-import-training",
      severity: "error",
      comment: "A service that trains would bypass the admission in training/; the API's train lives there.",
      from: { path: "^packages/server/src/services/", pathNot: TEST },
      to: { path: "^packages/server/src/training/" },
    },
    {
      name: "nothing-imports-benchmarks",
      severity: "error",
      comment: "Benchmarks measure the packages from outside; code that imports them would ship a benchmark.",
      from: { pathNot: ["^benchmarks/", ...TEST] },
      to: { path: "^benchmarks/" },
    },
    {
      name: "production-imports-no-test-code",
      severity: "error",
      comment:
        "Test files, test-support/ fixtures and the end-to-end harness in test/ are not shipped; production " +
        "code that imports them breaks once they change for a test's sake.",
      from: { pathNot: TEST },
      to: { path: TEST },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.bench-out)/" },
    // Type-only imports (`import type`, erased by verbatimModuleSyntax) are edges of the graph too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.check.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      // `@pricing/source` first: the workspace packages are checked as their TypeScript source, not dist/.
      conditionNames: ["@pricing/source", "import", "require", "node", "default", "types"],
      extensions: [".ts", ".mts", ".js", ".mjs", ".cjs", ".d.ts"],
    },
    cache: { folder: "node_modules/.cache/dependency-cruiser", strategy: "content" },
  },
};
