import { isApiError } from "@pricing/http-adapter";
import { CliError } from "../cli-runtime.js";

/** The API's expected failures (422, 409, 404) as CLI errors with the same code and message. */
export function cliErrorOf(error: unknown): unknown {
  if (isApiError(error)) return new CliError(error.message, error.code);
  return error;
}
