/** Characters of the client's own input (a key, a value) a message repeats at most. */
export const ECHO_MAX_CHARS = 64;
/** Unknown keys a message names at most; the rest are counted. */
export const UNKNOWN_KEYS_SHOWN = 5;
/** Problems a message describes at most. */
const ISSUES_SHOWN = 5;

/** One problem found by a schema, as Fastify and the zod type provider report it. */
export interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: { keys?: unknown };
}

/** The client's text, cut to `ECHO_MAX_CHARS` with its length said. */
function echo(text: string): string {
  return text.length <= ECHO_MAX_CHARS
    ? text
    : `${text.slice(0, ECHO_MAX_CHARS)}... (${text.length} characters)`;
}

function describeIssue(issue: ValidationIssue): string {
  const keys = issue.params?.keys;
  if (issue.keyword === "unrecognized_keys" && Array.isArray(keys)) {
    const shown = keys.slice(0, UNKNOWN_KEYS_SHOWN).map((k) => JSON.stringify(echo(String(k))));
    const more = keys.length > UNKNOWN_KEYS_SHOWN ? ` and ${keys.length - UNKNOWN_KEYS_SHOWN} more` : "";
    return `Unrecognized key${keys.length === 1 ? "" : "s"}: ${shown.join(", ")}${more}`;
  }
  // A schema's message may quote the input (an enum's or a pattern's value): each quote is cut.
  return (issue.message ?? "is invalid").replace(/"([^"]*)"/g, (_, quoted: string) => `"${echo(quoted)}"`);
}

/**
 * The message of a 400 `validation_error`: where each problem is and what it is, repeating at most
 * `ECHO_MAX_CHARS` of any one piece of the client's input and naming at most `UNKNOWN_KEYS_SHOWN` unknown keys, so
 * that a request of 2,000 unknown parameters, or one 8 KB key, gets a short answer.
 */
export function describeValidation(context: string | undefined, issues: readonly ValidationIssue[]): string {
  const parts = issues.slice(0, ISSUES_SHOWN).map((issue) => {
    const segments = (issue.instancePath ?? "").split("/").filter((s) => s.length > 0);
    const where = [context ?? "request", ...segments.map(echo)].join(".");
    return `${where}: ${describeIssue(issue)}`;
  });
  const more = issues.length > ISSUES_SHOWN ? ` (and ${issues.length - ISSUES_SHOWN} more problems)` : "";
  return `Invalid request: ${parts.join("; ")}${more}`;
}
