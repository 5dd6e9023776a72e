import { logSerializers } from "@pricing/http-adapter";
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from "pino";
import type { Config } from "./config.js";
import { redactSecrets } from "./secret-redaction.js";

/**
 * Bytes of log lines gathered before one write: ~10 request lines. Each write goes through libuv's thread pool (a
 * futex wake, the write, an eventfd back to the loop); a server that reads one request per turn of its loop wrote
 * once per request, ~45 µs of system CPU each on GET /v2/recommendations at 2 connections, against ~90 µs for the
 * whole answer of the bare route.
 */
const LOG_BATCH_BYTES = 4096;
/** Lines wait at most this long for a batch to fill: a quiet server's lines still show within a blink. */
const LOG_FLUSH_MS = 100;

/**
 * The one logger factory of every process role (API, worker, both): JSON lines at `config.logLevel`, requests
 * serialized without their secrets (`logSerializers`) and every `secret_key` and `access_token` censored
 * (`redactSecrets`), whoever logs them (a route, a job, the queue). Writes are asynchronous: a synchronous stdout that is a slow pipe would stall the event loop on every full pipe.
 * They are batched (`LOG_BATCH_BYTES`, at most `LOG_FLUSH_MS` late); pino writes what is left when the process
 * exits, a crash included (`process.on("exit")`); only a SIGKILL loses the last moment's lines.
 */
export function createLogger(config: Pick<Config, "logLevel">, stream?: DestinationStream): Logger {
  const logger = pino(
    {
      level: config.logLevel,
      serializers: logSerializers,
      formatters: { log: redactSecrets },
    },
    stream ??
      pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
  // pino drops a bindings formatter for children, so a child's bindings are censored on their way in; children are
  // made from this instance by prototype, so theirs go through here too.
  const child: (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) => unknown = logger.child;
  Object.defineProperty(logger, "child", {
    value: function censoredChild(this: Logger, bindings: Bindings, options?: ChildLoggerOptions) {
      return child.call(this, redactSecrets(bindings), options);
    },
    writable: true,
    configurable: true,
  });
  return logger;
}
