/** The fields of the API's error envelope `{error: {code, message, request_id}}`. */
export interface EnvelopeFields {
  code: string;
  message: string;
  request_id: string | null;
}

export function parseEnvelope(body: unknown): EnvelopeFields | null {
  if (typeof body !== "object" || body === null) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return null;
  const { code, message, request_id: requestId } = error as Record<string, unknown>;
  if (typeof code !== "string" || typeof message !== "string") return null;
  return { code, message, request_id: typeof requestId === "string" ? requestId : null };
}
