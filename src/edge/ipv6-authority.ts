import { isIPv6 } from "node:net";

/**
 * Puts brackets around an IPv6 literal in a request's :authority. Node's own HTTP/2 client (and
 * so connect-node's transports) sends `http://[::1]:8081` as "::1:8081", which Connect cannot
 * parse (new URL fails): every such call failed, answered HTTP 200 with no gRPC status. RFC 3986
 * 3.2.2 writes the literal in brackets, as curl and grpc-js send it. Unbracketed, "::1:8081" is
 * also a whole IPv6 address; the port the connection came in on tells the two readings apart.
 */
export function bracketIpv6Authority(headers: Record<string, string | string[] | undefined>, localPort: number | undefined): void {
  const authority = headers[":authority"];
  // Two colons or more and no bracket: an IPv6 literal, with or without a port (cheap test first).
  if (typeof authority !== "string" || authority.startsWith("[") || authority.indexOf(":") === authority.lastIndexOf(":")) return;
  const portSuffix = `:${localPort}`;
  if (localPort !== undefined && authority.endsWith(portSuffix) && isIPv6(authority.slice(0, -portSuffix.length))) {
    headers[":authority"] = `[${authority.slice(0, -portSuffix.length)}]${portSuffix}`;
  } else if (isIPv6(authority)) {
    headers[":authority"] = `[${authority}]`;
  }
}
