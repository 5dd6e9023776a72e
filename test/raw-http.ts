import { request } from "node:http";
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the envelope is inspected loosely in tests
  json: any;
  /** Milliseconds from connecting to the server closing the connection. */
  elapsedMs: number;
}

/**
 * Sends `chunks` as raw bytes on a fresh connection and resolves with what the server wrote once it closes the
 * connection: requests no HTTP client would send (stalled halfway, oversized, unparsable). The adapter's own tests
 * use it too: test code may import the workspace harness, while nothing here may reach into a package's files.
 */
export function rawRequest(url: string, chunks: readonly string[]): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => {
      text += data;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = body;
      }
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        json,
        elapsedMs: performance.now() - started,
      });
    });
  });
}

/**
 * A JSON POST on a real socket whose client gives up (a client timeout, a killed curl): sends the whole request and
 * returns the function that destroys the connection. The answer, if any, is never read.
 */
export function postThenGiveUp(url: string, headers: Record<string, string>, body: unknown): () => void {
  const req = request(url, { method: "POST", headers: { ...headers, "content-type": "application/json" } });
  req.on("error", () => {});
  req.end(JSON.stringify(body));
  return () => req.destroy();
}
