// The engine's domain folders (market, demand, problem, rule, optimum, policy, artifact, plan, ...) depend on each
// other in one direction only. Checked by `pnpm lint` in a second cruise of the engine's production files: a
// folder graph cannot leave test files out, and a test may import from any folder (`.dependency-cruiser.cjs`).
const { options } = require("./.dependency-cruiser.cjs");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "engine-no-folder-cycle",
      severity: "error",
      scope: "folder",
      comment:
        "Engine folders are its concepts; when two depend on each other neither can be understood, tested or " +
        "replaced alone, and the next change lands in whichever is at hand. Break the cycle by moving the shared " +
        "piece down to the folder both build on.",
      from: { path: "^packages/engine/src(/|$)" },
      to: { path: "^packages/engine/src(/|$)", circular: true },
    },
  ],
  options: {
    ...options,
    exclude: { path: [options.exclude.path, "\\.test\\.ts$", "/test-support/"] },
    // Its own cache: a cache made with other options is thrown away, so sharing one would defeat both.
    cache: { ...options.cache, folder: `${options.cache.folder}-engine-folders` },
  },
};
