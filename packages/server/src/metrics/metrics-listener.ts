import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, type Registry } from "prom-client";

export interface MetricsListener {
  /** e.g. `http://127.0.0.1:9464/metrics` */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format on its own port, never on the public one (DESIGN.md §4), so that
 * the operator can keep it off the internet. The Node process families join the registry here: a CLI command's
 * context, which nobody scrapes, starts no event-loop monitor.
 */
export interface MetricsListenerOptions {
  /** Also answer `GET /healthz` (200 `{"status":"ok"}` when it resolves true, else 503): a worker has no API. */
  health?: () => Promise<boolean>;
}

export async function startMetricsListener(
  registry: Registry,
  host: string,
  port: number,
  options: MetricsListenerOptions = {},
): Promise<MetricsListener> {
  // Standard names (`process_*`, `nodejs_*`), so the usual Node dashboards work unchanged.
  collectDefaultMetrics({ register: registry });
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    const health = options.health;
    if (path === "/healthz" && health !== undefined) {
      health().then(
        (ok) => {
          response
            .writeHead(ok ? 200 : 503, { "content-type": "application/json" })
            .end(JSON.stringify({ status: ok ? "ok" : "unavailable" }));
        },
        () => {
          response.writeHead(503, { "content-type": "application/json" }).end('{"status":"unavailable"}');
        },
      );
      return;
    }
    if (path !== "/metrics") {
      response
        .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
        .end("not found: see /metrics\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { "content-type": registry.contentType });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        response
          .writeHead(500, { "content-type": "text/plain; charset=utf-8" })
          .end(`metrics collection failed: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // A scraper's keep-alive connection would otherwise hold the close until its idle timeout.
        server.closeIdleConnections();
      }),
  };
}
