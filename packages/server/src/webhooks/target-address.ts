import { type LookupAddress, lookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** A webhook URL the server refuses to call; the message says why (never a secret). */
export class WebhookTargetError extends Error {
  override readonly name = "WebhookTargetError";
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

/** The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64, 6to4), which is what is really reached. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  const bytes = address.toByteArray();
  if (range === "ipv4Mapped") return address.toIPv4Address();
  if (range === "rfc6052") return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

/**
 * Why `address` is not a public unicast address (e.g. `loopback`, `private`, `linkLocal`, `uniqueLocal`,
 * `carrierGradeNat`, `reserved`), or null when it is one. IPv6 addresses that carry an IPv4 address are judged
 * by that address; other IPv6 must be global unicast (2000::/3). Not an IP address at all: `invalid`.
 */
export function nonPublicReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return "invalid";
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    const v4 = embeddedIpv4(v6);
    if (v4 !== null) return nonPublicReason(v4.toString());
    const range = v6.range();
    if (range !== "unicast") return range;
    return v6.match(GLOBAL_UNICAST_V6) ? null : "reserved";
  }
  const range = parsed.range();
  return range === "unicast" ? null : range;
}

export type ResolveHost = (host: string) => Promise<readonly LookupAddress[]>;

/** Every address the system resolver gives for `host`, IPv4 and IPv6. */
export const resolveHost: ResolveHost = (host) =>
  new Promise((resolve, reject) => {
    lookup(host, { all: true, family: 0 }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** `[::1]` is `::1`. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function refuseAddress(host: string, address: string, reason: string): WebhookTargetError {
  const named = host === address ? address : `${host} (${address})`;
  return new WebhookTargetError(
    `${named} is a ${reason} address; webhooks go to public addresses only unless PRICING_WEBHOOK_ALLOW_PRIVATE=true`,
  );
}

/**
 * Throws {@link WebhookTargetError} when `host` is an IP literal that is not public. A name is left to the resolver
 * (at registration) or to {@link publicOnlyLookup} (at delivery): sockets never pass an IP literal to `lookup`.
 */
export function assertPublicLiteral(host: string): void {
  if (isIP(host) === 0) return;
  const reason = nonPublicReason(host);
  if (reason !== null) throw refuseAddress(host, host, reason);
}

export interface TargetCheckOptions {
  /** `PRICING_WEBHOOK_ALLOW_PRIVATE`: skip the address check (URL shape is still checked). */
  allowPrivate: boolean;
  /** Default: the system resolver. */
  resolve?: ResolveHost;
}

/**
 * Parses and checks a webhook URL at registration: http or https, no credentials in it, and (unless private
 * targets are allowed) every address its host resolves to public. Throws {@link WebhookTargetError}.
 */
export async function checkWebhookTarget(text: string, options: TargetCheckOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError(`"${text}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebhookTargetError("a webhook URL must be http:// or https://");
  }
  if (url.username !== "" || url.password !== "") {
    throw new WebhookTargetError("a webhook URL must not carry credentials; the signature authenticates us");
  }
  if (url.hash !== "") throw new WebhookTargetError("a webhook URL must not have a #fragment");
  if (options.allowPrivate) return url;
  const host = bareHost(url);
  assertPublicLiteral(host);
  if (isIP(host) !== 0) return url;
  let addresses: readonly LookupAddress[];
  try {
    addresses = await (options.resolve ?? resolveHost)(host);
  } catch (error) {
    throw new WebhookTargetError(
      `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  if (addresses.length === 0) throw new WebhookTargetError(`cannot resolve ${host}: no address`);
  for (const { address } of addresses) {
    const reason = nonPublicReason(address);
    if (reason !== null) throw refuseAddress(host, address, reason);
  }
  return url;
}

/**
 * A `lookup` for the delivery's socket that refuses the connection when any resolved address is not public, so
 * the address checked is the address connected to (a DNS answer that changed since registration, "rebinding",
 * cannot reach a private network). An IP literal never goes through `lookup`: check it with
 * {@link assertPublicLiteral} before connecting.
 */
export function publicOnlyLookup(resolve: ResolveHost = resolveHost): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((a) => family === 0 || a.family === family);
        for (const { address } of addresses) {
          const reason = nonPublicReason(address);
          if (reason !== null) return callback(refuseAddress(hostname, address, reason), "", 0);
        }
        const first = usable[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`cannot resolve ${hostname}`);
          error.code = "ENOTFOUND";
          return callback(error, "", 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
