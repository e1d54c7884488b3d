import { promises as dns } from "node:dns";
import { connect, isIP } from "node:net";
import { parseHostPort, type TcpMonitorConfig } from "@vigil/domain";
import { createResolver, describeDnsError, dnsErrorCode, effectiveTimeoutMs } from "./dns";
import type { Attempt, CheckEnvironment } from "./types";
import { NO_TIMING } from "./types";

/** "127.0.0.1:80", "[::1]:80". */
const endpoint = (address: string, port: number) => (isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`);

type Resolved = { addresses: string[] } | { error: string };

/**
 * One TCP check attempt: resolve the host (unless it is an IP address),
 * connect within the timeout, which covers both, then close at once. Every
 * address the name has is tried in turn, so "localhost" works whether the
 * service listens on 127.0.0.1 or ::1. Rejects only when env.signal aborts.
 */
export async function tcpAttempt(config: TcpMonitorConfig, env: CheckEnvironment): Promise<Attempt> {
  env.signal?.throwIfAborted();
  const timeoutMs = effectiveTimeoutMs(config.timeout);
  const target = parseHostPort(config.uri);
  if (target === null) return failed(0, null, null, `invalid target ${JSON.stringify(config.uri)}: expected host:port`);
  const started = performance.now();
  const deadline = started + timeoutMs;

  let addresses = [target.host];
  let dnsMs: number | null = null;
  if (isIP(target.host) === 0) {
    const resolved = await resolveHost(target.host, env, timeoutMs);
    dnsMs = performance.now() - started;
    if ("error" in resolved) return failed(dnsMs, dnsMs, null, resolved.error);
    addresses = resolved.addresses;
  }

  const connectStarted = performance.now();
  const error = await connectToAny(addresses, target.port, deadline, timeoutMs, env.signal);
  const connectMs = performance.now() - connectStarted;
  const latencyMs = (dnsMs ?? 0) + connectMs;
  if (error !== null) return failed(latencyMs, dnsMs, connectMs, error);
  return { ok: true, latencyMs, timing: { ...NO_TIMING, dnsMs, connectMs }, statusCode: null, error: null };
}

function failed(latencyMs: number, dnsMs: number | null, connectMs: number | null, error: string): Attempt {
  return { ok: false, latencyMs, timing: { ...NO_TIMING, dnsMs, connectMs }, statusCode: null, error };
}

/**
 * The host's addresses, within `budgetMs`. With configured DNS servers: their
 * A records, else their AAAA records (as a check agent pinned to a resolver
 * must not fall back to /etc/hosts). Otherwise the system's resolver.
 */
async function resolveHost(host: string, env: CheckEnvironment, budgetMs: number): Promise<Resolved> {
  const timedOut: Resolved = { error: `timed out after ${budgetMs} ms (DNS lookup of ${host})` };
  if (env.dnsServers !== undefined && env.dnsServers.length > 0) {
    const resolver = createResolver(env.dnsServers, budgetMs);
    const lookup = async (): Promise<Resolved> => {
      try {
        return { addresses: await resolver.resolve4(host) };
      } catch (error) {
        if (dnsErrorCode(error) !== "ENODATA") throw error;
      }
      return { addresses: await resolver.resolve6(host) };
    };
    return withBudget(lookup(), budgetMs, env.signal, () => resolver.cancel(), timedOut, host);
  }
  // getaddrinfo cannot be cancelled: past the budget its answer is ignored.
  const lookup = dns.lookup(host, { all: true }).then((found): Resolved => ({ addresses: found.map((a) => a.address) }));
  return withBudget(lookup, budgetMs, env.signal, () => {}, timedOut, host);
}

/** Settles with the lookup, or `timedOut` after `budgetMs`; rejects when `signal` aborts. */
function withBudget(
  lookup: Promise<Resolved>,
  budgetMs: number,
  signal: AbortSignal | undefined,
  cancel: () => void,
  timedOut: Resolved,
  host: string,
): Promise<Resolved> {
  return new Promise<Resolved>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      finish();
      cancel();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      finish();
      cancel();
      resolve(timedOut);
    }, budgetMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    lookup.then(
      (resolved) => {
        finish();
        resolve(resolved);
      },
      (error: unknown) => {
        finish();
        const code = dnsErrorCode(error);
        resolve(code === "ETIMEOUT" ? timedOut : { error: `DNS lookup of ${host} failed: ${describeDnsError(code)}` });
      },
    );
  });
}

/**
 * Connects to each address in turn until one accepts, giving each an equal
 * share of the time left (so one unreachable address cannot use it all).
 * Returns null on success, else why the last address tried failed.
 */
async function connectToAny(
  addresses: readonly string[],
  port: number,
  deadline: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  let lastError: string | null = null;
  for (const [index, address] of addresses.entries()) {
    const left = deadline - performance.now();
    if (left <= 0) {
      return `timed out after ${timeoutMs} ms (${lastError === null ? `before connecting to ${endpoint(address, port)}` : `last error: ${lastError}`})`;
    }
    const share = left / (addresses.length - index);
    const result = await connectOnce(address, port, share, signal);
    if (result === "connected") return null;
    if (result !== "timeout") lastError = result;
    else if (index === addresses.length - 1) lastError = `timed out after ${timeoutMs} ms (connecting to ${endpoint(address, port)})`;
    else lastError = `no answer within ${Math.round(share)} ms (${endpoint(address, port)})`;
  }
  return lastError ?? "no address to connect to";
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EADDRNOTAVAIL: "address not available",
};

/** Opens and closes one connection: "connected", "timeout", or why it failed. */
function connectOnce(address: string, port: number, budgetMs: number, signal: AbortSignal | undefined): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: address, port });
    const finish = (result: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      socket.removeAllListeners();
      // Ignore whatever the closing socket reports from now on.
      socket.on("error", () => {});
      socket.destroy();
      result();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    const timer = setTimeout(() => finish(() => resolve("timeout")), budgetMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => finish(() => resolve("connected")));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      const what = SOCKET_ERRORS[code] ?? `connection failed: ${code}`;
      finish(() => resolve(`${what} (${endpoint(address, port)})`));
    });
  });
}
