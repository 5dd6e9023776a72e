import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// Issue 28 item 2: one client holding idle connections cannot take the server's connections from everyone else.
// The real server on a loopback port; the flood comes from 127.0.0.2 (loopback too), the probes from 127.0.0.1.

const FLOOD = 150;
let h: V2Harness;
const flood: Socket[] = [];

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z", undefined, {
    // Small bounds, so that a modest flood would fill the server without the guard.
    maxConnections: 64,
    maxConnectionsPerAddress: 16,
    silentConnectionTimeoutMs: 1_000,
  });
}, 60_000);

afterAll(async () => {
  for (const s of flood) s.destroy();
  await h?.destroy();
});

/** A connection that says nothing; resolves when the server has closed it. */
function idle(): Promise<void> {
  const { port } = new URL(h.url);
  const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: "127.0.0.2" });
  flood.push(socket);
  socket.on("error", () => undefined);
  return once(socket, "close").then(() => undefined);
}

describe("an idle-connection flood", () => {
  it("leaves /healthz and /readyz answering, and its silent connections are closed", async () => {
    const closed = Array.from({ length: FLOOD }, idle);
    // Every connection past the address's share is closed at once, whatever the order they arrive in.
    const started = performance.now();
    await new Promise<void>((resolve) => {
      let closedSoFar = 0;
      for (const c of closed) {
        void c.then(() => {
          if (++closedSoFar === FLOOD - 16) resolve();
        });
      }
    });
    for (let i = 0; i < 20; i++) {
      for (const path of ["/healthz", "/readyz"]) {
        const res = await fetch(`${h.url}${path}`);
        expect(res.status, path).toBe(200);
        await res.arrayBuffer();
      }
    }
    // The 16 it kept said nothing: each is closed by the silent bound.
    await Promise.all(closed);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  }, 60_000);
});
