import { ApiError } from "@pricing/http-adapter";
import type { z } from "zod";

/**
 * `value` parsed by `schema`, or the API's 400 `validation_error` naming the first field at fault (`what` when the
 * fault is the whole value): for inputs that do not come through a route's own schema (a CLI's flags, the console's
 * bodies).
 */
export function validatedInput<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || what;
  throw new ApiError("validation_error", `${field}: ${issue?.message ?? "is invalid"}`);
}
