import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { assertPublicLiteral, bareHost, publicOnlyLookup, type ResolveHost } from "./target-address.js";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Whole attempt, connect to last byte of the answer. */
  timeoutMs: number;
  /** `PRICING_WEBHOOK_ALLOW_PRIVATE`; otherwise every address connected to is checked as it is resolved. */
  allowPrivate: boolean;
  /** Aborts the attempt (the dispatcher stopping). */
  signal?: AbortSignal;
  resolve?: ResolveHost;
}

/** The receiver's HTTP status: a redirect is not followed (it is just a status that is not 2xx). */
export interface WebhookResponse {
  status: number;
}

/**
 * POSTs one signed webhook with Node's HTTP client: a fresh connection whose address is checked as it is
 * resolved (no agent, so no pooled socket skips the check), no redirects followed, the answer's body read and
 * dropped. Rejects on a refused address, a network error, the timeout or the signal.
 */
export function sendWebhook(req: WebhookRequest): Promise<WebhookResponse> {
  const url = new URL(req.url);
  try {
    if (!req.allowPrivate) assertPublicLiteral(bareHost(url));
  } catch (error) {
    return Promise.reject(error);
  }
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          ...req.headers,
          "content-length": String(Buffer.byteLength(req.body)),
          "user-agent": "pricing-webhooks/1",
        },
        signal,
        ...(req.allowPrivate ? {} : { lookup: publicOnlyLookup(req.resolve) }),
      },
      (response) => {
        response.resume();
        response.once("end", () => resolve({ status: response.statusCode ?? 0 }));
        response.once("error", reject);
      },
    );
    outgoing.once("error", (error) => {
      reject(timeout.aborted ? new Error(`no answer within ${req.timeoutMs} ms`) : error);
    });
    outgoing.end(req.body);
  });
}
