// The peer of bench/fidelity.ts: Prometheus' blackbox_exporter (Debian package prometheus-blackbox-exporter),
// started on loopback with a configuration the benchmark writes, asked to probe the same target URLs at the same
// rate through its /probe endpoint. Its figures are read from the answer's probe_http_duration_seconds phases,
// which map onto the agent's: connect (connection made − DNS done) is connectMs, processing (first answer byte −
// connection made) is firstByteMs, transfer (answer read − first byte) is transferMs, and their sum latencyMs
// (DNS takes nothing for an IP literal).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseExposition, sampleValue } from "../support/prometheus";
import { sleep } from "../support/run";

export const BLACKBOX_BINARY = "/usr/bin/prometheus-blackbox-exporter";

/** Its configuration: one module, an HTTP GET that wants a 2xx, over IPv4 as the targets are. */
const CONFIG = `modules:
  http:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
`;

export interface PeerSample {
  latencyMs: number;
  connectMs: number;
  firstByteMs: number;
  transferMs: number;
  /** probe_duration_seconds: the whole probe as the exporter timed it, its own work included. */
  probeMs: number;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });

export class Blackbox {
  private constructor(
    private readonly child: ChildProcess,
    private readonly url: string,
    private readonly dir: string,
  ) {}

  /** Starts it; fails with what to install when the binary is missing. */
  static async start(): Promise<Blackbox> {
    if (!existsSync(BLACKBOX_BINARY)) {
      throw new Error(`bench:fidelity measures blackbox_exporter beside the agent: ${BLACKBOX_BINARY} is missing (apt-get install prometheus-blackbox-exporter)`);
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-blackbox-"));
    writeFileSync(path.join(dir, "blackbox.yml"), CONFIG);
    const address = `127.0.0.1:${await freePort()}`;
    const child = spawn(BLACKBOX_BINARY, [`--config.file=${path.join(dir, "blackbox.yml")}`, `--web.listen-address=${address}`, "--log.level=warn"], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`blackbox_exporter exited with ${code}`))));
    const blackbox = new Blackbox(child, `http://${address}`, dir);
    for (let attempt = 0; ; attempt++) {
      const healthy = await Promise.race([fetch(`${blackbox.url}/-/healthy`).then((answer) => answer.ok, () => false), exited]);
      if (healthy) return blackbox;
      if (attempt === 100) throw new Error("blackbox_exporter did not answer /-/healthy in 10 s");
      await sleep(100);
    }
  }

  /** Its version, as `--version` says it. */
  static version(): string {
    return /version (\S+)/.exec(execFileSync(BLACKBOX_BINARY, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }))?.[1] ?? "unknown";
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Probes `target` (a URL) with the http module; throws unless the probe succeeded. */
  async probeHttp(target: string): Promise<PeerSample> {
    const answer = await fetch(`${this.url}/probe?module=http&target=${encodeURIComponent(target)}`);
    const samples = parseExposition(await answer.text());
    if (sampleValue(samples, "probe_success") !== 1) throw new Error(`blackbox_exporter's probe of ${target} failed`);
    const phase = (name: string) => 1000 * (sampleValue(samples, "probe_http_duration_seconds", { phase: name }) ?? NaN);
    const [connectMs, firstByteMs, transferMs] = [phase("connect"), phase("processing"), phase("transfer")];
    const probeMs = 1000 * sampleValue(samples, "probe_duration_seconds")!;
    return { latencyMs: connectMs + firstByteMs + transferMs, connectMs, firstByteMs, transferMs, probeMs };
  }

  async stop(): Promise<void> {
    const exited = new Promise((done) => this.child.once("exit", done));
    this.child.kill("SIGTERM");
    await exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
