// Prometheus' blackbox_exporter (Debian package prometheus-blackbox-exporter), started on loopback: the peer of
// bench/fidelity.ts, with a configuration that benchmark writes, asked to probe the same target URLs at the same
// rate through its /probe endpoint; and of bench/peer.ts, with the package's configuration, scraped by Prometheus
// (bench/peer/prometheus.ts). Its figures for bench/fidelity.ts are read from the answer's
// probe_http_duration_seconds phases, which map onto the agent's: connect (connection made − DNS done) is
// connectMs, processing (first answer byte − connection made) is firstByteMs, transfer (answer read − first byte)
// is transferMs, and their sum latencyMs (DNS takes nothing for an IP literal).
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseExposition, sampleValue } from "../support/prometheus";
import { startPrometheusProcess, versionOf } from "../support/prometheus-process";
import { stopChild } from "../support/service";

export const BLACKBOX_BINARY = "/usr/bin/prometheus-blackbox-exporter";
const DEBIAN_CONFIG_FILE = "/etc/prometheus/blackbox.yml";

/** Its configuration: one module, an HTTP GET that wants a 2xx, over IPv4 as the targets are. */
export const FIDELITY_CONFIG = `modules:
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

export class Blackbox {
  private constructor(
    private readonly child: ChildProcess,
    private readonly url: string,
    private readonly dir: string,
  ) {}

  /**
   * Starts it with `config` (a configuration's text), or with the configuration the Debian package installs (its
   * modules as blackbox_exporter ships them, http_2xx among them); fails with what to install when the binary is missing.
   */
  static async start(config?: string): Promise<Blackbox> {
    if (!existsSync(BLACKBOX_BINARY)) {
      throw new Error(`${BLACKBOX_BINARY} is missing: apt-get install prometheus-blackbox-exporter`);
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-blackbox-"));
    const configFile = config === undefined ? DEBIAN_CONFIG_FILE : path.join(dir, "blackbox.yml");
    if (config !== undefined) writeFileSync(configFile, config);
    const { child, url } = await startPrometheusProcess(BLACKBOX_BINARY, [`--config.file=${configFile}`], "/-/healthy");
    return new Blackbox(child, url, dir);
  }

  /** Its version, as `--version` says it. */
  static version(): string {
    return versionOf(BLACKBOX_BINARY);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** host:port of its /probe endpoint. */
  get address(): string {
    return new URL(this.url).host;
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
    await stopChild(this.child);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
