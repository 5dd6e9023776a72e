/**
 * The yardstick of the read-path benchmark: a bare Fastify route that serves a fixed JSON file's bytes, with no
 * auth, database or serializer. Prints `{"url": ...}` once listening; stops on SIGTERM.
 *
 *   tsx benchmarks/src/bare-json-server.ts <file.json>
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const file = process.argv[2];
if (!file) throw new Error("usage: bare-json-server.ts <file.json>");
const body = readFileSync(file);
const app = Fastify({ logger: false });
app.get("/v2/recommendations", (_request, reply) => {
  reply.type("application/json; charset=utf-8").send(body);
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address !== null ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
process.once("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
