import ipaddr from "ipaddr.js";

/** The host name of a `Host` header (port and IPv6 brackets dropped), lower-cased; null when there is none. */
export function hostName(host: string | undefined): string | null {
  if (host === undefined || host === "") return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return (bracketed[1] ?? "").toLowerCase();
  return host.replace(/:\d+$/, "").toLowerCase();
}

/**
 * Whether the console answers a request naming `host`: an IP address, `localhost`, or one of the names the
 * operator listed (`consoleHostnames`). A DNS-rebinding page runs under a name of the attacker's that resolves to
 * this machine, so its requests name that host and are refused here; an IP address can only be the page's own
 * origin if the page is the console's.
 */
export function hostAllowed(host: string | undefined, names: ReadonlySet<string>): boolean {
  const name = hostName(host);
  if (name === null) return false;
  return name === "localhost" || ipaddr.isValid(name) || names.has(name);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface RequestSite {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

/**
 * Why a state-changing request must be refused as cross-site, or null to let it through (the algorithm of Go's
 * `http.CrossOriginProtection`): safe methods pass; a browser's `Sec-Fetch-Site` must say `same-origin` (or
 * `none`, typed by the user); without it, an `Origin` must name the request's own host; a request with neither
 * header is not a browser's (curl, a script), whose credentials alone decide.
 */
export function crossSiteRefusal(request: RequestSite): string | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const site = request.secFetchSite;
  if (site !== undefined) {
    return site === "same-origin" || site === "none" ? null : `Sec-Fetch-Site is "${site}"`;
  }
  if (request.origin === undefined) return null;
  let originHost: string;
  try {
    originHost = new URL(request.origin).host;
  } catch {
    return `Origin "${request.origin}" is not a URL`;
  }
  return originHost !== "" && originHost.toLowerCase() === request.host?.toLowerCase()
    ? null
    : `Origin "${request.origin}" is not this console's`;
}
