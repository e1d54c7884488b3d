// The wire's truth for bench/fidelity.ts: every packet to and from the target's port on the loopback
// interface, captured by tcpdump with the kernel's timestamps, so that each request's phases can be read off
// the packets themselves rather than off any process's clock. A process (the agent, blackbox_exporter, the
// target) sees a packet only once the kernel has woken it and it has run; the capture's timestamp is taken
// as the packet is sent, in the sender's system call. What the wire shows is what the endpoint and the
// network really took, which is what a monitor should report:
//   connect    = SYN-ACK − SYN
//   first byte = the answer's first data packet − SYN-ACK
//   transfer   = the answer's last data packet − its first
//   latency    = the answer's last data packet − SYN (their sum)
// tcpdump writes the packets to a file, read back when asked (refresh): a pipe to this process would stall the
// capture whenever the benchmark waits for a core, and the kernel would drop packets.
// Needs tcpdump and the right to capture (root, or CAP_NET_RAW); fails at start otherwise.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface WirePhases {
  connectMs: number;
  firstByteMs: number;
  transferMs: number;
  latencyMs: number;
}

/** One TCP connection to the target, by the client's port, in epoch ms from the capture's timestamps. */
interface Connection {
  syn: number;
  synAck?: number;
  firstData?: number;
  lastData?: number;
}

// "1795592336.224148731 IP 127.0.0.1.59542 > 127.0.0.1.6391: Flags [S], seq …, length 0"
const PACKET = /^(\d+)\.(\d{9}) IP 127\.0\.0\.1\.(\d+) > 127\.0\.0\.1\.(\d+): Flags \[([^\]]*)\].* length (\d+)/;

export class WireCapture {
  /** Each client port's connections, oldest first: a port is used again by later connections. */
  private readonly connections = new Map<number, Connection[]>();
  private dropped = "";

  private constructor(
    private readonly tcpdump: ChildProcess,
    private readonly port: number,
    private readonly file: string,
  ) {}

  /** Starts capturing the target's port; resolves once tcpdump listens. */
  static start(port: number): Promise<WireCapture> {
    // Only the packets read: the client's SYN, the target's SYN-ACK and its packets that carry data (a third of an
    // exchange's), so that the capture costs the machine it measures little.
    const payload = "(ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2)) > 0";
    const filter = `(tcp dst port ${port} and tcp[tcpflags] == tcp-syn) or (tcp src port ${port} and (tcp[tcpflags] & tcp-syn != 0 or ${payload}))`;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "vigil-wire-")), "lo.pcap");
    // -U writes each packet as it comes, so that a refresh reads every packet captured so far.
    // -Z: tcpdump writes the file as the user it was started by, not the one it would drop to.
    const tcpdump = spawn("tcpdump", ["-i", "lo", "-n", "-U", "-Z", os.userInfo().username, "--immediate-mode", "--time-stamp-precision=nano", "-B", "16384", "-w", file, filter], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const capture = new WireCapture(tcpdump, port, file);
    return new Promise((resolve, reject) => {
      let said = "";
      tcpdump.once("error", (error) => reject(new Error(`tcpdump could not start (${error.message}): install it (apt-get install tcpdump)`)));
      tcpdump.once("exit", (code) => reject(new Error(`tcpdump exited with ${code}: ${said.trim()} (it needs root or CAP_NET_RAW)`)));
      tcpdump.stderr!.on("data", (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes("listening on")) resolve(capture);
        // tcpdump says how many packets the kernel dropped when it stops.
        const dropped = /(\d+) packets? dropped by kernel/.exec(said);
        if (dropped) capture.dropped = dropped[1]!;
      });
    });
  }

  /** Reads the capture so far again. */
  refresh(): void {
    const text = execFileSync("tcpdump", ["-r", this.file, "-n", "-tt", "--time-stamp-precision=nano"], {
      encoding: "utf8",
      maxBuffer: 2 ** 30,
      stdio: ["ignore", "pipe", "ignore"],
    });
    this.connections.clear();
    for (const line of text.split("\n")) this.packet(line);
  }

  private packet(line: string): void {
    const match = PACKET.exec(line);
    if (!match) return;
    const at = Number(match[1]) * 1000 + Number(match[2]) / 1e6;
    const [from, to, flags, length] = [Number(match[3]), Number(match[4]), match[5]!, Number(match[6])];
    const toTarget = to === this.port;
    const clientPort = toTarget ? from : to;
    if (toTarget && flags === "S") {
      const kept = this.connections.get(clientPort);
      // A SYN sent again (none answered yet) is the same connection, whose time runs from the first.
      if (kept && kept.at(-1)!.synAck === undefined) return;
      if (kept) kept.push({ syn: at });
      else this.connections.set(clientPort, [{ syn: at }]);
      return;
    }
    const connection = this.connections.get(clientPort)?.at(-1);
    if (!connection || toTarget) return;
    if (flags === "S.") connection.synAck ??= at;
    else if (length > 0) {
      connection.firstData ??= at;
      connection.lastData = at;
    }
  }

  /**
   * The phases of the connection from `clientPort` whose request the target received at `arrivedAt` (epoch ms,
   * the target's Date.now()): the last connection from that port opened before then.
   */
  phasesOf(clientPort: number, arrivedAt: number): WirePhases {
    // Date.now() is whole milliseconds: a SYN in the same millisecond is before the request too.
    const connection = this.connections
      .get(clientPort)
      ?.filter((c) => c.syn <= arrivedAt + 1)
      .at(-1);
    if (!connection?.synAck || connection.firstData === undefined || connection.lastData === undefined) {
      throw new Error(`the capture has no whole exchange from port ${clientPort} before ${arrivedAt}`);
    }
    return {
      connectMs: connection.synAck - connection.syn,
      firstByteMs: connection.firstData - connection.synAck,
      transferMs: connection.lastData - connection.firstData,
      latencyMs: connection.lastData - connection.syn,
    };
  }

  get pid(): number {
    return this.tcpdump.pid!;
  }

  /** Stops tcpdump; throws when the kernel dropped packets (the capture would then miss exchanges). */
  async stop(): Promise<void> {
    this.tcpdump.removeAllListeners("exit");
    // "close": its output read to the end, the count of drops included.
    const exited = new Promise((done) => this.tcpdump.once("close", done));
    this.tcpdump.kill("SIGINT");
    await exited;
    rmSync(path.dirname(this.file), { recursive: true, force: true });
    if (this.dropped && this.dropped !== "0") throw new Error(`the kernel dropped ${this.dropped} packets of the capture`);
  }
}
