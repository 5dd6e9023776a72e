import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The console's own browser files: plain JS and CSS, no build step (src/ and dist/ sit at the same depth). */
const OWN = new URL("../../console-assets/", import.meta.url);

/**
 * Every file the console's pages load, by URL: the charting library from its npm package (a production dependency,
 * so `pnpm deploy:server` keeps it; never a CDN) and the console's own script and style sheet. Read once.
 */
function loadAssets(): Map<string, Asset> {
  const resolve = createRequire(import.meta.url).resolve;
  const files: [string, string, string][] = [
    ["/assets/uplot.js", resolve("uplot/dist/uPlot.iife.min.js"), "text/javascript; charset=utf-8"],
    ["/assets/uplot.css", resolve("uplot/dist/uPlot.min.css"), "text/css; charset=utf-8"],
    ["/assets/console.js", fileURLToPath(new URL("console.js", OWN)), "text/javascript; charset=utf-8"],
    ["/assets/console.css", fileURLToPath(new URL("console.css", OWN)), "text/css; charset=utf-8"],
  ];
  return new Map(
    files.map(([url, file, type]) => {
      const body = readFileSync(file);
      return [
        url,
        { body, type, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 16)}"` },
      ];
    }),
  );
}

/** The asset URLs with their version, for the pages' `<script>` and `<link>` tags (a changed file gets a new URL). */
export interface AssetUrls {
  readonly [url: string]: string;
}

/** Serves the assets under `/assets/`, revalidated by ETag; returns their versioned URLs. */
export function registerStaticAssets(app: FastifyInstance): AssetUrls {
  const assets = loadAssets();
  for (const [url, asset] of assets) {
    app.get(url, async (request, reply) => {
      reply.header("etag", asset.etag).header("cache-control", "no-cache");
      if (request.headers["if-none-match"] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    });
  }
  return Object.fromEntries([...assets].map(([url, asset]) => [url, `${url}?v=${asset.etag.slice(1, 9)}`]));
}
