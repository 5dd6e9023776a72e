const API_PREFIX = "/public/v1";

/**
 * The API root every path is appended to, from the `baseUrl` option: an absolute http(s) URL; a bare origin means
 * the canonical `/public/v1` prefix. Credentials in the URL are refused: they would be sent on every request.
 */
export function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("PricingClient: baseUrl must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("PricingClient: baseUrl must be an absolute http(s) URL");
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new TypeError("PricingClient: baseUrl must not carry a query, fragment or credentials");
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path === "" ? API_PREFIX : path}`;
}
