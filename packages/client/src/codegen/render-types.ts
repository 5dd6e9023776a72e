import openapiTS, { astToString } from "openapi-typescript";

export const GENERATED_HEADER =
  "// Generated from the server's OpenAPI document by `pnpm --filter @pricing/client gen:types`. Do not edit.\n" +
  "// A test (codegen/generate-types.test.ts) fails when this file and the served document disagree.\n\n";

/** TypeScript declarations (`paths`, `operations`, `components`) for an OpenAPI 3.1 document. */
export async function renderTypes(document: Record<string, unknown>): Promise<string> {
  // The document is an object already, so openapi-typescript never reads a file or the network.
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]);
  return GENERATED_HEADER + astToString(ast);
}
