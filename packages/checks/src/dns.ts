import { promises as dns } from "node:dns";
import type { FailureReason } from "@vigil/domain/alerting";
import { failedRecordAssertions } from "@vigil/domain/assertions";
import type { RecordType } from "@vigil/domain/comparators";
import { effectiveTimeoutMs } from "@vigil/domain/limits";
import type { DnsMonitorConfig } from "@vigil/domain/monitor-config";
import { Deadline } from "./deadline";
import { codeOf } from "./errors";
import type { Attempt, CheckEnvironment } from "./types";
import { NO_TIMING } from "./types";

/** Records found per type looked up; a type that has no records maps to []. */
export type DnsRecords = Partial<Record<RecordType, string[]>>;

/** What one lookup of a domain found, before any assertion is applied. */
export interface DnsLookup {
  records: DnsRecords;
  /** Why the lookup failed (NXDOMAIN, SERVFAIL, refused, timeout); null when every type was answered. */
  error: string | null;
  /** The error's kind (timeout; protocol for a malformed answer; else dns); null when error is. */
  reason: FailureReason | null;
  /** Time from the first query to the last answer (or to the failure), in ms. */
  dnsMs: number;
}

/**
 * c-ares retransmits once after `timeout` and doubles the wait for each try,
 * so two tries of a third of the budget each take the whole budget. The
 * retransmission covers a lost UDP packet; the caller's own timer still
 * enforces the budget exactly (c-ares has a floor of a few hundred ms).
 */
const RESOLVER_TRIES = 2;

/**
 * A resolver that gives up within about `budgetMs`, asking `servers`
 * ("127.0.0.1:5353") or the system's. Make one per attempt: c-ares caches
 * answers per resolver, and a check must ask the server every time.
 */
export function createResolver(servers: readonly string[] | undefined, budgetMs: number): dns.Resolver {
  const resolver = new dns.Resolver({ timeout: Math.max(1, Math.ceil(budgetMs / 3)), tries: RESOLVER_TRIES });
  if (servers !== undefined && servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

/** The DNS error code (ENOTFOUND, ENODATA, ESERVFAIL, ...) of a rejected lookup. */
export function dnsErrorCode(error: unknown): string {
  return codeOf(error) ?? String(error);
}

const DNS_ERROR_HINTS: Record<string, string> = {
  ENOTFOUND: "no such domain",
  ENODATA: "no records",
  ESERVFAIL: "server failure",
  EREFUSED: "query refused",
  ECONNREFUSED: "DNS server unreachable",
  EBADRESP: "malformed answer",
  EFORMERR: "server could not read the query",
};

/** "ENOTFOUND (no such domain)": the code for logs and searches, the hint for people. */
export function describeDnsError(code: string): string {
  const hint = DNS_ERROR_HINTS[code];
  return hint === undefined ? code : `${code} (${hint})`;
}

/** One type's records as strings compareRecords understands: MX by exchange host, TXT chunks joined. */
async function resolveType(resolver: dns.Resolver, domain: string, type: RecordType): Promise<string[]> {
  switch (type) {
    case "A":
      return resolver.resolve4(domain);
    case "AAAA":
      return resolver.resolve6(domain);
    case "CNAME":
      return resolver.resolveCname(domain);
    case "MX":
      return (await resolver.resolveMx(domain)).map((mx) => mx.exchange);
    case "TXT":
      return (await resolver.resolveTxt(domain)).map((chunks) => chunks.join(""));
  }
}

/**
 * Looks up `types` for `domain` in parallel within `timeoutMs`. A type with
 * no records (ENODATA) is an empty list; any other failure (NXDOMAIN,
 * SERVFAIL, refused, timeout) fails the whole lookup, because then we do not
 * know what the records are. Rejects only when `signal` aborts.
 */
export async function lookupDnsRecords(
  domain: string,
  types: readonly RecordType[],
  env: CheckEnvironment,
  timeoutMs: number,
): Promise<DnsLookup> {
  env.signal?.throwIfAborted();
  const resolver = createResolver(env.dnsServers, timeoutMs);
  const started = performance.now();
  const deadline = new Deadline(timeoutMs, env.signal);
  // Cancelling makes every pending query reject with ECANCELLED at once.
  deadline.onEnd(() => resolver.cancel());

  const records: DnsRecords = {};
  const failures: { type: RecordType; code: string }[] = [];
  try {
    await Promise.all(
      types.map(async (type) => {
        try {
          records[type] = await resolveType(resolver, domain, type);
        } catch (error) {
          const code = dnsErrorCode(error);
          if (code === "ENODATA") {
            records[type] = [];
          } else {
            failures.push({ type, code });
            // The attempt has failed: do not wait for the other types.
            resolver.cancel();
          }
        }
      }),
    );
  } finally {
    deadline.dispose();
  }
  const dnsMs = performance.now() - started;
  env.signal?.throwIfAborted();

  // The first failure is the real one: it cancelled the other queries.
  const [failure] = failures;
  if (failure === undefined) return { records, error: null, reason: null, dnsMs };
  if (deadline.timedOut || failure.code === "ETIMEOUT") {
    return { records, error: `timed out after ${timeoutMs} ms (DNS lookup of ${domain})`, reason: "timeout", dnsMs };
  }
  // NXDOMAIN is about the name, not one record type.
  const what = failure.code === "ENOTFOUND" ? domain : `${domain} (${failure.type})`;
  // The server is the DNS check's target: an answer c-ares cannot parse is the target breaking the protocol.
  const reason = failure.code === "EBADRESP" ? "protocol" : "dns";
  return { records, error: `DNS lookup of ${what} failed: ${describeDnsError(failure.code)}`, reason, dnsMs };
}

/** Record types a DNS check looks up: those its assertions name, else A and AAAA. */
export function recordTypesToLookUp(config: Pick<DnsMonitorConfig, "recordAssertions">): RecordType[] {
  if (config.recordAssertions.length === 0) return ["A", "AAAA"];
  return [...new Set(config.recordAssertions.map((a) => a.record))];
}

/**
 * One DNS check attempt: the lookup must succeed and every record assertion
 * hold; without assertions the name must have at least one A or AAAA record.
 * Rejects only when env.signal aborts.
 */
export async function dnsAttempt(config: DnsMonitorConfig, env: CheckEnvironment): Promise<Attempt> {
  const lookup = await lookupDnsRecords(config.uri, recordTypesToLookUp(config), env, effectiveTimeoutMs(config.timeout));
  let { error, reason } = lookup;
  if (error === null) {
    error = failedAssertions(config, lookup.records);
    // Without assertions the rule is that the name resolves to an address.
    if (error !== null) reason = config.recordAssertions.length === 0 ? "dns" : "assertion";
  }
  return { ok: error === null, latencyMs: lookup.dnsMs, timing: { ...NO_TIMING, dnsMs: lookup.dnsMs }, statusCode: null, error, reason };
}

/** Why the records found fail the check, or null. */
function failedAssertions(config: DnsMonitorConfig, records: DnsRecords): string | null {
  if (config.recordAssertions.length === 0) {
    const found = (records.A?.length ?? 0) + (records.AAAA?.length ?? 0);
    return found > 0 ? null : `DNS lookup of ${config.uri} found no A or AAAA records`;
  }
  const failed = failedRecordAssertions(records, config.recordAssertions);
  return failed.length === 0 ? null : failed.join("; ");
}
