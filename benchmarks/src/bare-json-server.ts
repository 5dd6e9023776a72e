/**
 * The yardstick of the read-path benchmark: a bare Fastify route that serves a fixed JSON file's bytes, with no
 * auth, database or serializer; given the same JSON gzipped, it sends those bytes (`Content-Encoding: gzip`) to a
 * request whose Accept-Encoding names gzip. Prints `{"url": ...}` once listening; stops on SIGTERM.
 *
 *   tsx benchmarks/src/bare-json-server.ts <file.json> [<file.json.gz>]
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const [file, gzipFile] = process.argv.slice(2);
if (!file) throw new Error("usage: bare-json-server.ts <file.json> [<file.json.gz>]");
const body = readFileSync(file);
const gzipped = gzipFile ? readFileSync(gzipFile) : null;
const app = Fastify({ logger: false });
app.get("/v2/recommendations", (request, reply) => {
  reply.type("application/json; charset=utf-8");
  // A substring test, not the real route's negotiation: the yardstick does as little as it can.
  if (gzipped && request.headers["accept-encoding"]?.includes("gzip")) {
    reply.header("content-encoding", "gzip").header("vary", "Accept-Encoding").send(gzipped);
    return;
  }
  reply.send(body);
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address !== null ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
process.once("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
