/**
 * The SSRF guard's rule: which IP addresses Vigil may connect to when a user
 * chose the target (a check, a webhook, a per-monitor OTLP endpoint). Every
 * connection to such a target asks `AddressPolicy.refusal` about the address
 * it is about to connect to, after DNS resolution, so a name that resolves
 * (or rebinds) to an internal address is refused like the address itself.
 * Endpoints the operator configures (SMTP_URL, provider API bases, REDIS_URL,
 * …) are trusted and never asked. See docs/outbound-guard.md.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, isIPv4, isIPv6, type LookupFunction } from "node:net";
import { z } from "zod";
import type { HttpMonitorConfig, MonitorConfig, MonitorKind, TcpMonitorConfig } from "./monitor-config";
import { blockName, type ProviderConfig } from "./notification-config";
import { parseHostPort } from "./hosts";
import { parseEnv, ValidationError, type FieldViolation } from "./validation";

interface Rule {
  /** What the address is, as messages name it: "loopback address". */
  name: string;
  article: "a" | "an" | "the";
  /** Opened by ALLOW_PRIVATE_TARGETS=true. */
  private: boolean;
  v4: BlockList;
  v6: BlockList;
}

/**
 * Every rule's ranges in one list per family. Most addresses a check connects
 * to are public and match no rule: one check of these says so, where asking
 * each rule's list took a fifth of the CPU of the TCP connect it guards
 * (each BlockList.check builds a SocketAddress).
 */
const ANY_RULE = { ipv4: new BlockList(), ipv6: new BlockList() };

function rule(name: string, article: Rule["article"], isPrivate: boolean, ranges: { v4?: string[]; v6?: string[] }): Rule {
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const cidr of ranges.v4 ?? []) {
    addCidr(v4, cidr);
    addCidr(ANY_RULE.ipv4, cidr);
  }
  for (const cidr of ranges.v6 ?? []) {
    addCidr(v6, cidr);
    addCidr(ANY_RULE.ipv6, cidr);
  }
  return { name, article, private: isPrivate, v4, v6 };
}

/**
 * Refused unless opened, first match naming the address. Link-local is not
 * "private" here: it holds the cloud metadata service (169.254.169.254),
 * the most valuable SSRF target, so only ALLOWED_TARGET_CIDRS opens it.
 */
const RULES: readonly Rule[] = [
  rule("loopback address", "a", true, { v4: ["127.0.0.0/8"], v6: ["::1/128"] }),
  rule("private address (RFC 1918)", "a", true, { v4: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"] }),
  rule("shared address (CGNAT, RFC 6598)", "a", true, { v4: ["100.64.0.0/10"] }),
  rule("unique-local address (IPv6)", "a", true, { v6: ["fc00::/7"] }),
  rule("link-local address", "a", false, { v4: ["169.254.0.0/16"], v6: ["fe80::/10"] }),
  // 0.0.0.0 reaches the host itself on Linux.
  rule("unspecified address", "an", false, { v4: ["0.0.0.0/8"], v6: ["::/128"] }),
  rule("multicast address", "a", false, { v4: ["224.0.0.0/4"], v6: ["ff00::/8"] }),
  rule("broadcast address", "the", false, { v4: ["255.255.255.255/32"] }),
  rule("documentation address", "a", false, { v4: ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"], v6: ["2001:db8::/32"] }),
  rule("reserved address", "a", false, {
    // Future use (240/4), IETF protocol assignments, benchmarking.
    v4: ["240.0.0.0/4", "192.0.0.0/24", "198.18.0.0/15"],
    // Discard-only, benchmarking, ORCHID, local-use NAT64, deprecated site-local.
    v6: ["100::/64", "2001:2::/48", "2001:10::/28", "64:ff9b:1::/48", "fec0::/10"],
  }),
];

/** IPv6 forms that carry an IPv4 address in their last 32 bits: connecting to them reaches (or is translated to) that address. */
const EMBEDDING_FORMS: readonly { name: string; prefix: BlockList }[] = [
  { name: "IPv4-mapped", prefix: subnetList("::ffff:0:0/96") },
  { name: "IPv4-compatible", prefix: subnetList("::/96") },
  { name: "NAT64", prefix: subnetList("64:ff9b::/96") },
];

const PRIVATE_HINT = "set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it";
const CIDR_HINT = "set ALLOWED_TARGET_CIDRS to allow it";

/** Why an address is refused. */
export interface AddressRefusal {
  address: string;
  /** "loopback address", "private address (RFC 1918) (IPv4-mapped form of 10.0.0.5)". */
  rule: string;
  /** "a loopback address". */
  description: string;
  /** The setting that would open it. */
  hint: string;
}

/** The error of a connection the guard refused; permanent, never worth a retry. */
export class AddressRefusedError extends Error {
  readonly code = "ERR_VIGIL_ADDRESS_REFUSED";
  constructor(readonly refusal: AddressRefusal) {
    super(`refused to connect to ${refusal.address}: ${refusal.rule}; ${refusal.hint}`);
    this.name = "AddressRefusedError";
  }
}

/** By code, not instanceof: errors pass through other libraries (undici, Node's net) on their way back. */
export const isAddressRefusedError = (error: unknown): error is AddressRefusedError =>
  (error as { code?: unknown } | null)?.code === "ERR_VIGIL_ADDRESS_REFUSED";

export interface AddressPolicySettings {
  /** ALLOW_PRIVATE_TARGETS: opens loopback, RFC 1918, CGNAT and IPv6 unique-local. */
  allowPrivateTargets: boolean;
  /** ALLOWED_TARGET_CIDRS: ranges opened whatever rule would refuse them ("10.1.0.0/16", "fd00::/8", "169.254.169.254"). */
  allowedTargetCidrs: readonly string[];
}

export class AddressPolicy {
  /** The default: every rule refuses. */
  static readonly STRICT = new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: [] });

  private readonly allowed = new BlockList();

  constructor(readonly settings: AddressPolicySettings) {
    for (const cidr of settings.allowedTargetCidrs) addCidr(this.allowed, cidr);
  }

  /** ALLOW_PRIVATE_TARGETS and ALLOWED_TARGET_CIDRS; a bad value stops start-up naming the variable. */
  static fromEnv(env: NodeJS.ProcessEnv): AddressPolicy {
    const e = parseEnv(envSchema, env);
    return new AddressPolicy({ allowPrivateTargets: e.ALLOW_PRIVATE_TARGETS, allowedTargetCidrs: e.ALLOWED_TARGET_CIDRS });
  }

  /** Why `address` (an IP address, as connected to) may not be connected to, or null when it may. */
  refusal(address: string): AddressRefusal | null {
    if (isIPv4(address)) return this.judge(address, "ipv4", address, "");
    if (!isIPv6(address)) throw new TypeError(`${JSON.stringify(address)} is not an IP address`);
    // An IPv6 rule of the address's own (::1, ::, fe80::/10, …) decides first; else the IPv4 address it carries, if any.
    if (ANY_RULE.ipv6.check(address, "ipv6")) return this.judge(address, "ipv6", address, "");
    const form = EMBEDDING_FORMS.find((f) => f.prefix.check(address, "ipv6"));
    if (form === undefined) return null;
    const v4 = embeddedIPv4(address);
    return this.judge(v4, "ipv4", address, ` (${form.name} form of ${v4})`);
  }

  /** `ip` against the rules; `address` is what is connected to (`ip`, or an IPv6 form carrying it). */
  private judge(ip: string, family: "ipv4" | "ipv6", address: string, form: string): AddressRefusal | null {
    if (!ANY_RULE[family].check(ip, family)) return null;
    const matched = RULES.find((r) => (family === "ipv4" ? r.v4 : r.v6).check(ip, family));
    if (matched === undefined) return null;
    const opened =
      this.allowed.check(ip, family) ||
      (address !== ip && this.allowed.check(address, "ipv6")) ||
      (matched.private && this.settings.allowPrivateTargets);
    if (opened) return null;
    const ruleName = `${matched.name}${form}`;
    return { address, rule: ruleName, description: `${matched.article} ${ruleName}`, hint: matched.private ? PRIVATE_HINT : CIDR_HINT };
  }

  /** Throws AddressRefusedError when `address` is refused. */
  assertAllowed(address: string): void {
    const refusal = this.refusal(address);
    if (refusal !== null) throw new AddressRefusedError(refusal);
  }

  /**
   * The addresses of a resolved name that may be connected to, in order;
   * when none may, throws AddressRefusedError for the first. Refused ones
   * are dropped rather than failing the whole name: the connection is made
   * only to an address that passed.
   */
  permitted(addresses: readonly string[]): string[] {
    const allowed = addresses.filter((address) => this.refusal(address) === null);
    if (allowed.length === 0 && addresses.length > 0) this.assertAllowed(addresses[0]!);
    return allowed;
  }

  /**
   * A `lookup` for Node's net/tls/http (and undici's connector) that resolves
   * as usual and hands on only permitted addresses, so the socket connects to
   * an address the guard has seen. IP literals never reach a lookup: callers
   * check those with assertAllowed.
   */
  lookup(): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
        if (error) return callback(error, "", 0);
        if (found.length === 0) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "", 0);
        let allowed: LookupAddress[];
        try {
          const addresses = this.permitted(found.map((a) => a.address));
          allowed = found.filter((a) => addresses.includes(a.address));
        } catch (refused) {
          return callback(refused as NodeJS.ErrnoException, "", 0);
        }
        if (options.all) return callback(null, allowed);
        callback(null, allowed[0]!.address, allowed[0]!.family);
      });
    };
  }

  /**
   * Save-time hint for user-supplied targets: each that names a literal IP
   * address, or `localhost`, this policy refuses. Names are not resolved
   * here; they are checked when connecting.
   * @throws ValidationError naming each such field
   */
  assertTargetsAllowed(targets: readonly UserTarget[]): void {
    const violations = targets.flatMap(({ field, target }) => {
      const violation = this.targetViolation(field, target);
      return violation === null ? [] : [violation];
    });
    if (violations.length > 0) throw new ValidationError(violations);
  }

  private targetViolation(field: string, target: string): FieldViolation | null {
    const host = literalHostOf(target);
    if (host === null) return null;
    const refusal = this.refusal(host === "localhost" ? "127.0.0.1" : host);
    if (refusal === null) return null;
    const shown = host === "localhost" ? "localhost (127.0.0.1)" : host;
    return { field, rule: `refused: ${shown} is ${refusal.description}; ${refusal.hint}` };
  }
}

/** A target a user chose, by the field (its JSON path) that holds it. */
export interface UserTarget {
  field: string;
  /** A URL, or host:port. */
  target: string;
}

/**
 * The targets of a monitor that Vigil connects to: the HTTP URL, the TCP
 * host:port, and its own OTLP endpoint. A DNS monitor names a domain that
 * the agent's resolvers (the operator's) look up: nothing to guard.
 */
export function monitorTargets(kind: MonitorKind, config: MonitorConfig): UserTarget[] {
  const targets: UserTarget[] = [];
  if (kind === "http") targets.push({ field: "monitor.url", target: (config as HttpMonitorConfig).url });
  if (kind === "tcp" || kind === "grpc") targets.push({ field: "monitor.uri", target: (config as TcpMonitorConfig).uri });
  const endpoint = config.openTelemetry?.endpoint ?? "";
  if (endpoint !== "") targets.push({ field: "monitor.openTelemetry.endpoint", target: endpoint });
  return targets;
}

/**
 * The URLs of a channel a user chose (webhooks, an ntfy server). Channels
 * that reach a provider through the deployment's API base (PagerDuty,
 * Opsgenie, Telegram, Twilio) or SMTP have none.
 */
export function channelTargets(provider: ProviderConfig, prefix = "notification"): UserTarget[] {
  const at = (field: string, target: string) => (target === "" ? [] : [{ field: `${prefix}.${blockName(provider.type)}.${field}`, target }]);
  switch (provider.type) {
    case "webhook":
      return at("endpoint", provider.config.endpoint);
    case "slack":
    case "discord":
    case "google_chat":
    case "grafana_oncall":
      return at("webhookUrl", provider.config.webhookUrl);
    case "ntfy":
      return at("serverUrl", provider.config.serverUrl);
    default:
      return [];
  }
}

/** The IP address or `localhost` a URL or host:port names; null for other names and unreadable targets. */
function literalHostOf(target: string): string | null {
  let host: string | undefined;
  if (URL.canParse(target)) host = new URL(target).hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === undefined || host === "") host = hostOfHostPort(target);
  if (host === undefined) return null;
  host = host.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "localhost";
  return isIP(host) === 0 ? null : host;
}

/**
 * The host of a TCP target in the form the URL parser gives a URL's: it reads
 * "2130706433", "0x7f.1" or "127.1" as 127.0.0.1, as the system's resolver
 * does when the agent connects, so the save-time hint sees the address too.
 */
function hostOfHostPort(target: string): string | undefined {
  const host = parseHostPort(target)?.host;
  if (host === undefined || isIPv6(host)) return host;
  const url = `http://${host}/`;
  return URL.canParse(url) ? new URL(url).hostname : host;
}

/** The last 32 bits of an IPv6 address as dotted IPv4. */
function embeddedIPv4(address: string): string {
  // The URL parser writes IPv6 in its canonical form, an embedded dotted quad in hex.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = "", tail] = canonical.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right].map((g) => parseInt(g, 16));
  const [high, low] = [all[6]!, all[7]!];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** "10.0.0.0/8" or a single address; false when it is neither. */
function parseCidr(value: string): { network: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [network = "", prefixText, extra] = value.split("/");
  const version = isIP(network);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { network, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

function addCidr(list: BlockList, cidr: string): void {
  const parsed = parseCidr(cidr);
  if (parsed === null) throw new Error(`${cidr} is not a CIDR range`);
  list.addSubnet(parsed.network, parsed.prefix, parsed.family);
}

function subnetList(cidr: string): BlockList {
  const list = new BlockList();
  addCidr(list, cidr);
  return list;
}

const envSchema = z.object({
  ALLOW_PRIVATE_TARGETS: z
    .preprocess((value) => (value === "" ? undefined : value), z.enum(["true", "false"], { error: "must be true or false" }).default("false"))
    .transform((value) => value === "true"),
  ALLOWED_TARGET_CIDRS: z
    .string()
    .default("")
    .transform((value, ctx) => {
      const ranges = value
        .split(",")
        .map((range) => range.trim())
        .filter((range) => range !== "");
      const bad = ranges.filter((range) => parseCidr(range) === null);
      if (bad.length > 0) ctx.addIssue({ code: "custom", message: `${bad.join(", ")}: must be CIDR ranges such as 10.1.0.0/16 or fd00::/8, comma-separated` });
      return ranges;
    }),
});

/** The name of every variable the guard reads. */
export const ADDRESS_POLICY_SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);
