/**
 * A small authoritative DNS server for tests, on 127.0.0.1 (UDP, and TCP on
 * the same port for answers too large for UDP), answering from a zone object.
 * Messages are encoded and decoded with dns-packet; no bytes by hand.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from "node:dgram";
import { createServer, type Server as TcpServer, type Socket as TcpSocket } from "node:net";
import * as packet from "dns-packet";

export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  /** The name's canonical name; queries for other types follow it within the zone, as an authoritative server does. */
  CNAME?: string;
  MX?: { preference: number; exchange: string }[];
  /** One entry per TXT record; an array gives the record's character-strings (chunks). */
  TXT?: (string | string[])[];
  /** Waits this long before answering queries for this name. */
  delayMs?: number;
  /** Answers SERVFAIL for this name. */
  servfail?: boolean;
  /** Answers NXDOMAIN to the first N queries for this name, then normally: a flaky target. */
  failFirst?: number;
  /** Answers over UDP with the message's last byte cut off: a header promising more than the message holds. */
  malformed?: boolean;
  /** A records answered instead of A from the second query for this name on: DNS rebinding. */
  rebindA?: string[];
}

/** Names are matched without case and without the trailing dot. Unknown names get NXDOMAIN. */
export type Zone = Record<string, ZoneEntry>;

export interface TestDnsServer {
  /** "127.0.0.1:port", for CheckEnvironment.dnsServers. */
  readonly server: string;
  readonly port: number;
  /** Queries received so far, over UDP and TCP. */
  readonly queries: number;
  /** Queries received so far for one name (any type). */
  queriesFor(name: string): number;
  /** Queries received over TCP (the resolver switches to TCP for truncated answers). */
  readonly tcpQueries: number;
  stop(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;
/** The largest UDP answer without EDNS (RFC 1035). */
const CLASSIC_UDP_LIMIT = 512;

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, "");

type SupportedType = "A" | "AAAA" | "CNAME" | "MX" | "TXT";

function recordsOf(name: string, entry: ZoneEntry, type: SupportedType): packet.Answer[] {
  const base = { name, ttl: 60, class: "IN" as const };
  switch (type) {
    case "A":
      return (entry.A ?? []).map((data) => ({ ...base, type: "A", data }));
    case "AAAA":
      return (entry.AAAA ?? []).map((data) => ({ ...base, type: "AAAA", data }));
    case "CNAME":
      return entry.CNAME === undefined ? [] : [{ ...base, type: "CNAME", data: entry.CNAME }];
    case "MX":
      return (entry.MX ?? []).map((data) => ({ ...base, type: "MX", data }));
    case "TXT":
      return (entry.TXT ?? []).map((data) => ({ ...base, type: "TXT", data }));
  }
}

const isSupported = (type: string): type is SupportedType => ["A", "AAAA", "CNAME", "MX", "TXT"].includes(type);

export async function startDnsServer(zone: Zone): Promise<TestDnsServer> {
  const entries = new Map(Object.entries(zone).map(([name, entry]) => [normalize(name), entry]));
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let queries = 0;
  let tcpQueries = 0;

  /** The answer to one query, how long to wait before sending it, and whether to garble it. */
  function answer(query: packet.DecodedPacket): { response: packet.Packet; delayMs: number; malformed?: boolean } {
    const question = query.questions?.[0];
    const reply = (rcode: number, answers: packet.Answer[] = []): packet.Packet => ({
      type: "response",
      id: query.id ?? 0,
      // dns-packet keeps the low bits of `flags` as they are: the RCODE goes there.
      flags: packet.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & packet.RECURSION_DESIRED) | rcode,
      questions: query.questions ?? [],
      answers,
    });
    if (question === undefined) return { response: reply(RCODE.SERVFAIL), delayMs: 0 };
    const name = normalize(question.name);
    const seen = (counts.get(name) ?? 0) + 1;
    counts.set(name, seen);
    const entry = entries.get(name);
    if (entry === undefined) return { response: reply(RCODE.NXDOMAIN), delayMs: 0 };
    const delayMs = entry.delayMs ?? 0;
    if (entry.servfail) return { response: reply(RCODE.SERVFAIL), delayMs };
    if (entry.failFirst !== undefined && seen <= entry.failFirst) return { response: reply(RCODE.NXDOMAIN), delayMs };
    if (!isSupported(question.type)) return { response: reply(RCODE.NOERROR), delayMs };
    if (question.type === "A" && entry.rebindA !== undefined && seen > 1) {
      return { response: reply(RCODE.NOERROR, recordsOf(question.name, { A: entry.rebindA }, "A")), delayMs };
    }

    // Follow CNAMEs inside the zone (a few hops at most), like an authoritative server answering for the whole chain.
    const answers: packet.Answer[] = [];
    let owner = question.name;
    let current: ZoneEntry | undefined = entry;
    for (let hop = 0; current !== undefined && hop < 8; hop += 1) {
      if (question.type === "CNAME" || current.CNAME === undefined) {
        answers.push(...recordsOf(owner, current, question.type));
        break;
      }
      answers.push(...recordsOf(owner, current, "CNAME"));
      owner = current.CNAME;
      current = entries.get(normalize(owner));
    }
    return { response: reply(RCODE.NOERROR, answers), delayMs, malformed: entry.malformed };
  }

  function later(delayMs: number, send: () => void): void {
    if (delayMs <= 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delayMs);
    timers.add(timer);
  }

  const { udp, tcp, port } = await bindBoth();
  udp.on("message", (message: Buffer, from: RemoteInfo) => {
    let query: packet.DecodedPacket;
    try {
      query = packet.decode(message);
    } catch {
      return; // Not DNS: ignore, as a server would.
    }
    queries += 1;
    const { response, delayMs, malformed } = answer(query);
    const opt = query.additionals?.find((r): r is packet.OptAnswer => r.type === "OPT");
    const limit = Math.max(CLASSIC_UDP_LIMIT, opt?.udpPayloadSize ?? 0);
    let bytes = packet.encode(response);
    // Too large for UDP: send the truncated header so the resolver asks again over TCP.
    if (bytes.length > limit) bytes = packet.encode({ ...response, flags: (response.flags ?? 0) | packet.TRUNCATED_RESPONSE, answers: [] });
    if (malformed) bytes = bytes.subarray(0, bytes.length - 1);
    later(delayMs, () => udp.send(bytes, from.port, from.address));
  });

  const connections = new Set<TcpSocket>();
  tcp.on("connection", (socket: TcpSocket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Each TCP message is a 2-byte length followed by the message.
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const length = pending.readUInt16BE(0);
        const message = pending.subarray(2, 2 + length);
        pending = pending.subarray(2 + length);
        let query: packet.DecodedPacket;
        try {
          query = packet.decode(message);
        } catch {
          socket.destroy();
          return;
        }
        queries += 1;
        tcpQueries += 1;
        const { response, delayMs } = answer(query);
        later(delayMs, () => {
          if (!socket.destroyed) socket.write(packet.streamEncode(response));
        });
      }
    });
  });

  return {
    server: `127.0.0.1:${port}`,
    port,
    get queries() {
      return queries;
    },
    get tcpQueries() {
      return tcpQueries;
    },
    queriesFor: (name) => counts.get(normalize(name)) ?? 0,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

/**
 * Binds UDP to a free port, then TCP to the same number (the resolver uses one
 * port for both). That TCP port can be taken by someone else: start over then.
 */
async function bindBoth(): Promise<{ udp: UdpSocket; tcp: TcpServer; port: number }> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const udp = createSocket("udp4");
    const port = await new Promise<number>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(0, "127.0.0.1", () => {
        udp.off("error", reject);
        resolve(udp.address().port);
      });
    });
    const tcp = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      const onError = () => resolve(false);
      tcp.once("error", onError);
      tcp.listen(port, "127.0.0.1", () => {
        tcp.off("error", onError);
        resolve(true);
      });
    });
    if (bound) return { udp, tcp, port };
    await new Promise<void>((resolve) => udp.close(() => resolve()));
  }
  throw new Error("no port free for both UDP and TCP for the test DNS server");
}
