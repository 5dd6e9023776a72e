import ipaddr from "ipaddr.js";

/**
 * Whether listening on `host` keeps the console on this machine: `localhost` or a loopback address (127.0.0.0/8,
 * ::1, an IPv4-mapped loopback). A wildcard (`0.0.0.0`, `::`), another address or another name is not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare.toLowerCase() === "localhost") return true;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === "loopback";
}
