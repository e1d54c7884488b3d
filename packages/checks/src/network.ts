/**
 * Reaching a target: the addresses of its host name, then a connection to
 * one of them. HTTP and TCP checks share these, so that a name resolves,
 * and a failure reads, the same in both.
 */
import { lookup } from "node:dns/promises";
import { connect, isIPv6, type Socket } from "node:net";
import { isAddressRefusedError, type AddressPolicy } from "@vigil/domain/address-policy";
import type { Deadline } from "./deadline";
import { createResolver, describeDnsError, dnsErrorCode } from "./dns";
import { TargetFailure, codeOf, messageOf } from "./errors";

export interface ResolveOptions {
  /** The agent's DNS servers ("127.0.0.1:5353"); the system's resolver when absent or empty. */
  servers?: readonly string[] | undefined;
  /**
   * false tells a DNS error by its bare code ("ENOTFOUND") instead of
   * "ENOTFOUND (no such domain)": HTTP results have always read that way.
   */
  explainErrors?: boolean;
}

/**
 * The addresses of a host name, in the order to try them. With the agent's
 * DNS servers: their A records, else their AAAA records (an agent pinned to a
 * resolver must not fall back to the hosts file). Otherwise the system's
 * resolver, which reads the hosts file too. Rejects with a TargetFailure, or
 * with the agent's reason when it aborts the check.
 */
export async function resolveHost(host: string, deadline: Deadline, options: ResolveOptions = {}): Promise<string[]> {
  const { servers, explainErrors = true } = options;
  try {
    deadline.throwIfEnded();
    const addresses =
      servers !== undefined && servers.length > 0
        ? await resolveWithServers(host, servers, deadline)
        : (await untilEnded(lookup(host, { all: true }), deadline)).map((a) => a.address);
    if (addresses.length === 0) throw Object.assign(new Error("no addresses"), { code: "ENODATA" });
    return addresses;
  } catch (error) {
    const code = dnsErrorCode(error);
    // c-ares is told to give up with the deadline (createResolver), so its ETIMEOUT is the attempt's timeout too.
    if (deadline.timedOut || code === "ETIMEOUT") throw new TargetFailure(`timed out after ${deadline.ms} ms (DNS lookup of ${host})`, "timeout");
    if (deadline.ended) throw deadline.reason;
    // Even a garbled answer is "dns" here: the HTTP or TCP target itself never answered.
    throw new TargetFailure(`DNS lookup of ${host} failed: ${explainErrors ? describeDnsError(code) : code}`, "dns");
  }
}

async function resolveWithServers(host: string, servers: readonly string[], deadline: Deadline): Promise<string[]> {
  const resolver = createResolver(servers, deadline.remainingMs());
  const unsubscribe = deadline.onEnd(() => resolver.cancel());
  try {
    const v4 = await resolver.resolve4(host).catch((error: unknown) => {
      if (dnsErrorCode(error) === "ENODATA") return [];
      throw error;
    });
    return v4.length > 0 ? v4 : await resolver.resolve6(host);
  } finally {
    unsubscribe();
  }
}

/** Settles with the promise, or rejects as soon as the attempt ends: getaddrinfo cannot be cancelled, its late answer is ignored. */
function untilEnded<T>(promise: Promise<T>, deadline: Deadline): Promise<T> {
  return new Promise((resolve, reject) => {
    const unsubscribe = deadline.onEnd(() => reject(deadline.reason));
    promise.then(resolve, reject).finally(unsubscribe);
  });
}

/**
 * A TCP connection to the first of `addresses` that takes one, so that
 * "localhost" works whether the service listens on 127.0.0.1 or ::1. Each
 * address gets an equal share of the time left, so one that never answers
 * cannot use it all. Only addresses `policy` permits are tried, and they are
 * the very addresses connected to: a name that resolves (or rebinds) to an
 * internal address is refused as "blocked". Rejects with a TargetFailure
 * telling why the last address failed, or with the agent's reason when it
 * aborts the check.
 */
export async function connectToAny(
  resolved: readonly string[],
  port: number,
  deadline: Deadline,
  policy: AddressPolicy,
  /** Called once, as the first connection is attempted: when the connect phase begins. */
  onFirstAttempt: () => void,
): Promise<Socket> {
  const addresses = permittedOf(resolved, policy);
  let lastFailure = "no address to connect to";
  for (let index = 0; index < addresses.length; index++) {
    const address = addresses[index]!;
    // The last address waits for the deadline itself: running out of time there is the attempt's timeout.
    const shareMs = index === addresses.length - 1 ? undefined : deadline.remainingMs() / (addresses.length - index);
    try {
      const socket = connect({ host: address, port });
      // Node emits connectionAttempt just before its connect system call, which sends the SYN: building the socket
      // before it (a tenth of a millisecond and more on cold code) is not the target's time.
      if (index === 0) socket.once("connectionAttempt", onFirstAttempt);
      return await ready(socket, "connect", deadline, shareMs);
    } catch (error) {
      const where = endpoint(address, port);
      if (deadline.timedOut) throw new TargetFailure(`timed out after ${deadline.ms} ms (connecting to ${where})`, "timeout");
      if (deadline.ended) throw deadline.reason;
      lastFailure = error instanceof NoAnswer ? `no answer within ${Math.round(shareMs ?? 0)} ms (${where})` : describeConnectError(error, where);
    }
  }
  throw new TargetFailure(lastFailure, "connect");
}

function permittedOf(addresses: readonly string[], policy: AddressPolicy): string[] {
  try {
    return policy.permitted(addresses);
  } catch (error) {
    if (isAddressRefusedError(error)) throw new TargetFailure(error.message, "blocked");
    throw error;
  }
}

/** An address that did not answer within its share of the time. */
class NoAnswer extends Error {}

/**
 * Waits for a socket's ready event; on an error, the end of the attempt, or
 * no answer within `limitMs` (NoAnswer), destroys it and rejects.
 */
export function ready<S extends Socket>(socket: S, event: "connect" | "secureConnect", deadline: Deadline, limitMs?: number): Promise<S> {
  return new Promise((resolve, reject) => {
    if (deadline.ended) {
      socket.destroy();
      return reject(deadline.reason);
    }
    const settle = (error?: unknown) => {
      clearTimeout(timer);
      unsubscribe();
      socket.off(event, onReady);
      socket.off("error", settle);
      if (error === undefined) return resolve(socket);
      socket.destroy();
      reject(error);
    };
    const onReady = () => settle();
    const timer = limitMs === undefined ? undefined : setTimeout(() => settle(new NoAnswer()), limitMs);
    // on, not once: settle removes both, and once would wrap each listener in a closure of its own.
    socket.on(event, onReady);
    socket.on("error", settle);
    const unsubscribe = deadline.onEnd(() => settle(deadline.reason));
  });
}

/** "127.0.0.1:80", "[::1]:80". */
const endpoint = (address: string, port: number) => (isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`);

const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EADDRNOTAVAIL: "address not available",
};

/** "connection refused (127.0.0.1:80)": what happened, then where. */
function describeConnectError(error: unknown, where: string): string {
  const code = codeOf(error);
  const what = code === undefined ? undefined : CONNECT_ERRORS[code];
  return `${what ?? `connection failed: ${code ?? messageOf(error)}`} (${where})`;
}
