import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  /** The status this receiver answered. */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The next answers, first first; 200 once they are used up. */
  answerNext(...statuses: number[]): void;
  close(): Promise<void>;
}

/** A partner's webhook endpoint on a loopback port: records every request and answers as told. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answered = answers.shift() ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), answered });
      res.writeHead(answered, { "content-type": "text/plain" });
      res.end(answered < 300 ? "ok" : "try again");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/pricing`,
    received,
    answerNext: (...statuses) => answers.push(...statuses),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
