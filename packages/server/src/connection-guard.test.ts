import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { guardConnections } from "./connection-guard.js";

let server: Server;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function start(silentMs: number, perAddress: number) {
  server = createServer((_req, res) => res.end("ok"));
  const guard = guardConnections(server, { silentMs, perAddress });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  const open = async (localAddress = "127.0.0.1") => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    sockets.push(socket);
    await once(socket, "connect");
    return socket;
  };
  return { guard, open, port };
}

/** Resolves with whether the server closed the socket (end or reset), reading whatever it answered. */
function closedByServer(socket: Socket): Promise<string> {
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString("utf8");
  });
  socket.on("error", () => undefined);
  return new Promise((resolve) => socket.once("close", () => resolve(answer)));
}

describe("the connection guard", () => {
  it("closes a connection that sends nothing, and keeps one that speaks", async () => {
    const { guard, open } = await start(150, 100);
    const silent = await open();
    const speaking = await open();
    speaking.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    const [answer] = await once(speaking, "data");
    expect(String(answer)).toMatch(/^HTTP\/1.1 200/);
    expect(await closedByServer(silent)).toBe("");
    expect(guard.closed.silent).toBe(1);
    // The one that spoke is still open past the silent bound: it answers again.
    expect(speaking.destroyed).toBe(false);
    speaking.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    const [again] = await once(speaking, "data");
    expect(String(again)).toMatch(/^HTTP\/1.1 200/);
  });

  it("closes an address's connections beyond its share at once, and serves other addresses", async () => {
    const { guard, open } = await start(60_000, 3);
    const held = [await open(), await open(), await open()];
    const refused = await open();
    expect(await closedByServer(refused)).toBe("");
    expect(guard.closed.overAddressCap).toBe(1);
    expect(guard.openByAddress().get("127.0.0.1")).toBe(3);
    // Another address (127.0.0.2 is loopback too) is not held back by the first one's flood.
    const other = await open("127.0.0.2");
    other.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    expect(await closedByServer(other)).toMatch(/^HTTP\/1.1 200/);
    // A closed connection frees its address's share.
    const gone = held[0] as Socket;
    gone.destroy();
    await once(gone, "close");
    await waitUntil(() => guard.openByAddress().get("127.0.0.1") === 2);
    const next = await open();
    next.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    expect(await closedByServer(next)).toMatch(/^HTTP\/1.1 200/);
  });
});

/** The server sees a client's close a moment after the client does: wait for its count, on its own events. */
async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
