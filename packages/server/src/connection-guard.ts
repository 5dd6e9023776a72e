import type { Server } from "node:net";

export interface ConnectionGuardOptions {
  /** A connection that has sent no byte this long after it was accepted is closed. */
  readonly silentMs: number;
  /** Open connections one client address may hold; one more is closed as soon as it is accepted. */
  readonly perAddress: number;
}

export interface ConnectionGuard {
  /** Connections closed so far: never sent a byte in time, or over their address's share. */
  readonly closed: { silent: number; overAddressCap: number };
  /** Open connections of each address (addresses without one are absent). */
  openByAddress(): ReadonlyMap<string, number>;
}

/**
 * Guards a server against idle-connection floods, which Node's own bounds do not stop: its headers timeout lets a
 * socket that sends nothing sit for the whole timeout (and reopening one every timeout keeps it so), and
 * `maxConnections` is shared by everyone, so one client holding them all locks out every other, health probes
 * included. Here a connection that has sent nothing within `silentMs` is closed (a real client speaks at once),
 * and one address holds at most `perAddress` connections. Behind a reverse proxy every connection comes from the
 * proxy's address: the proxy must hold fewer than `perAddress` (README "In front of the server").
 */
export function guardConnections(server: Server, options: ConnectionGuardOptions): ConnectionGuard {
  const open = new Map<string, number>();
  const closed = { silent: 0, overAddressCap: 0 };
  server.on("connection", (socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const count = (open.get(address) ?? 0) + 1;
    if (count > options.perAddress) {
      closed.overAddressCap++;
      socket.destroy();
      return;
    }
    open.set(address, count);
    // Node's HTTP parser reads the socket's handle directly (no 'data' events): bytesRead is what tells.
    const silent = setTimeout(() => {
      if (socket.bytesRead > 0) return;
      closed.silent++;
      socket.destroy();
    }, options.silentMs);
    silent.unref();
    socket.once("close", () => {
      clearTimeout(silent);
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
  return { closed, openByAddress: () => open };
}
