import { isIP, isIPv4, isIPv6 } from "node:net";
import { z } from "zod";

/**
 * Building blocks for the contract's field rules. Every message is phrased to
 * follow the field's name: "monitor.name: must be at most 256 characters".
 */
export const typed = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`),
});

export const text = (maxChars?: number) => {
  const base = z.string(typed("a string"));
  return maxChars === undefined ? base : base.max(maxChars, `must be at most ${maxChars} characters`);
};

export const nonEmptyText = (maxChars: number) => text(maxChars).min(1, "must not be empty");

export const integer = (range: { min: number; max: number }) => {
  const rule = `must be an integer from ${range.min} to ${range.max}`;
  return z.number(typed("an integer")).int(rule).min(range.min, rule).max(range.max, rule);
};

export const boolean = () => z.boolean(typed("true or false"));

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, typed(`one of ${values.join(", ")}`));

export const list = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item, typed("a list")).max(max, `must have at most ${max} entries`);

/** A list whose entries must all differ (the contract's "set of"). */
export const set = <T extends z.ZodType>(item: T) =>
  z.array(item, typed("a list")).superRefine((values, ctx) => {
    const seen = new Set<unknown>();
    values.forEach((value, index) => {
      if (seen.has(value)) ctx.addIssue({ code: "custom", message: `must not repeat ${String(value)}`, path: [index] });
      seen.add(value);
    });
  });

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NO_LINE_BREAKS = /^[^\r\n\0]*$/;

/** A request or response header name (an HTTP token). */
export const headerName = () => text(256).min(1, "must not be empty").regex(HTTP_TOKEN, "must be a valid HTTP header name");
export const headerValue = () => text().regex(NO_LINE_BREAKS, "must not contain line breaks");

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

export const httpUrl = (maxChars: number) => nonEmptyText(maxChars).refine(isHttpUrl, "must be an absolute http:// or https:// URL");

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
