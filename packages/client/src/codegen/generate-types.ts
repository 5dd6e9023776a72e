import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderTypes } from "./render-types.js";
import { loadServedDocument } from "./served-document.js";

/** The committed types file. */
export const GENERATED_TYPES_PATH = fileURLToPath(new URL("../openapi.gen.ts", import.meta.url));

/** The types file as it should be now, from the document the server serves. */
export async function generateTypes(): Promise<string> {
  return renderTypes(await loadServedDocument());
}

export function readCommittedTypes(): string {
  return readFileSync(GENERATED_TYPES_PATH, "utf8");
}

// `tsx src/codegen/generate-types.ts [--check]`: writes the file, or with --check exits 1 when it is stale.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes("--check");
  const fresh = await generateTypes();
  if (check) {
    const stale = fresh !== readCommittedTypes();
    console.log(
      stale ? "openapi.gen.ts is stale: run pnpm --filter @pricing/client gen:types" : "up to date",
    );
    process.exitCode = stale ? 1 : 0;
  } else {
    writeFileSync(GENERATED_TYPES_PATH, fresh);
    console.log(`wrote ${GENERATED_TYPES_PATH}`);
  }
}
