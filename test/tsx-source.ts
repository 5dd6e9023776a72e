import { join } from "node:path";

/**
 * tsx, for a child process that runs a workspace entry point from its TypeScript source: the `@pricing/source`
 * export condition resolves `@pricing/*` imports to `src/` instead of the built `dist/`.
 */
export const TSX = join(process.cwd(), "node_modules/.bin/tsx");

/** The arguments of `TSX` that run `script` from source with `args`. */
export function fromSource(script: string, ...args: string[]): string[] {
  return ["--conditions=@pricing/source", script, ...args];
}
