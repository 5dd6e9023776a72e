import { REDACTED } from "@pricing/http-adapter";

/** Field names whose values never reach a log line, at the top of a line or one object below it. */
const SECRET_FIELDS = ["secret_key", "access_token"] as const;

function holdsSecret(value: object): boolean {
  return Object.hasOwn(value, SECRET_FIELDS[0]) || Object.hasOwn(value, SECRET_FIELDS[1]);
}

/**
 * `value` with its own secret fields censored: a copy with the same prototype and property descriptors, so an
 * `Error` still serializes as one (its message and stack are not enumerable), and the caller's object is untouched.
 */
function censored(value: object): object {
  const copy = Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value)) as Record<
    string,
    unknown
  >;
  for (const field of SECRET_FIELDS) {
    if (Object.hasOwn(copy, field)) copy[field] = REDACTED;
  }
  return copy;
}

/**
 * The log line's fields with every `secret_key` and `access_token` censored, at the top of the line and one object
 * below it: the one redaction of every log line and child logger's bindings. pino's own `redact` option is not used:
 * it cloned and walked the line on each call (~1/3 of a request line's cost on the main read path) for paths that
 * the request serializer already leaves out (`req.headers`, `req.body`). This looks at each field's own keys and
 * copies only the line and the field that hold one. It runs before the serializers, which is the same for ours: the
 * request serializer never copies a secret field and pino's error serializer copies an error's own fields, which are
 * looked at here.
 */
export function redactSecrets<T extends Record<string, unknown>>(line: T): T {
  let out = holdsSecret(line) ? (censored(line) as Record<string, unknown>) : undefined;
  for (const key in line) {
    const value = line[key];
    if (typeof value !== "object" || value === null || out?.[key] === REDACTED || !holdsSecret(value))
      continue;
    out ??= { ...line };
    out[key] = censored(value);
  }
  return (out ?? line) as T;
}
