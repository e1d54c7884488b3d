import { isIP, isIPv4, isIPv6 } from "./ip";
import { nonEmptyText } from "./rules";

// Apart from ./rules: the text rules need no address parsing.

const DOMAIN_LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;

export function isDomainName(value: string): boolean {
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  if (name.length === 0 || name.length > 253 || isIP(name)) return false;
  return name.split(".").every((label) => DOMAIN_LABEL.test(label));
}

/** Splits `host:port` (hostname, IPv4, or [IPv6]); null when it is not one. */
export function parseHostPort(value: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return null;
  const [ipv6, name] = [match[1], match[2]];
  if (ipv6 !== undefined) return isIPv6(ipv6) ? { host: ipv6, port } : null;
  if (name === undefined) return null;
  return isIPv4(name) || isDomainName(name) ? { host: name, port } : null;
}

export const hostPort = (maxChars: number) =>
  nonEmptyText(maxChars).refine(
    (value) => parseHostPort(value) !== null,
    "must be host:port with a hostname, an IPv4 address or [IPv6 address] and a port from 1 to 65535",
  );

export const domainName = (maxChars: number) =>
  nonEmptyText(maxChars).refine(isDomainName, "must be a domain name (labels of letters, digits, - and _)");
