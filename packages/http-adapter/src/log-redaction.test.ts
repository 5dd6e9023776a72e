import { Writable } from "node:stream";
import Fastify, { type FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { logSerializers } from "./log-redaction.js";

/** Fastify's logger (pino) with the host's serializers, writing its lines into `lines`. */
function loggerInto(lines: string[]) {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return Fastify({ logger: { serializers: logSerializers, stream: sink } }).log;
}

describe("logSerializers.req", () => {
  it("redacts a request target's undefined query values", () => {
    const lines: string[] = [];
    const request = { method: "GET", url: "/v2/recommendations?company_id=c1&token=abc" };
    loggerInto(lines).info({ req: request as unknown as FastifyRequest }, "read");
    const line = JSON.parse(lines[0] ?? "{}");
    expect(line.req.url).toBe("/v2/recommendations?company_id=c1&token=[redacted]");
    expect(lines[0]).not.toContain("abc");
  });

  it("logs a `req` field that is not a request (no url) instead of throwing", () => {
    const lines: string[] = [];
    const logger = loggerInto(lines);
    expect(() => logger.info({ req: { id: "job-1" } }, "worker line")).not.toThrow();
    const line = JSON.parse(lines[0] ?? "{}");
    expect(line.msg).toBe("worker line");
    expect(line.req.url).toBeUndefined();
  });
});
