import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp, loadConfig } from "@pricing/server";

/**
 * The OpenAPI document exactly as the server serves it at `/public/v1/openapi.json`: the real app is built over a
 * throw-away data directory and asked through `inject`, so no port is opened and no network is touched.
 */
export async function loadServedDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "pricing-client-codegen-"));
  try {
    const config = loadConfig({}, { dataDir, logLevel: "silent" });
    const built = await buildApp(config);
    try {
      const response = await built.app.inject({ method: "GET", url: "/public/v1/openapi.json" });
      if (response.statusCode !== 200) {
        throw new Error(`GET /public/v1/openapi.json answered ${response.statusCode}`);
      }
      return response.json<Record<string, unknown>>();
    } finally {
      await built.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
