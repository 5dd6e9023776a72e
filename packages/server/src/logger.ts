import { logSerializers } from "@pricing/http-adapter";
import pino, { type DestinationStream, type Logger } from "pino";
import type { Config } from "./config.js";

/** Paths pino must never print, should a serializer or a log call ever include them. */
const REDACT = [
  "req.headers.authorization",
  "req.body",
  "access_token",
  "secret_key",
  "*.secret_key",
  "*.access_token",
];

/**
 * The one logger factory of every process role (API, worker, both): JSON lines at `config.logLevel`, requests
 * serialized without their secrets and the secret paths redacted, whoever logs them (a route, a job, the queue).
 * Writes are asynchronous: a synchronous stdout that is a slow pipe would stall the event loop on every full pipe.
 */
export function createLogger(config: Pick<Config, "logLevel">, stream?: DestinationStream): Logger {
  return pino(
    { level: config.logLevel, serializers: logSerializers, redact: { paths: REDACT, censor: "[redacted]" } },
    stream ?? pino.destination({ dest: 1, sync: false }),
  );
}
