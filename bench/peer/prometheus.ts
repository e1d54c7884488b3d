// Prometheus (Debian package prometheus) scraping blackbox_exporter's /probe for every target, as teams run the
// pair: one job, module http_2xx, each target URL relabelled to the `target` parameter, every 30 s; data in a
// temporary folder, on a loopback port of its own, its other settings its defaults. Its samples are read back
// through its HTTP API: a range selector in an instant query returns a series' raw samples.
import { execFileSync, type ChildProcess, type ExecFileSyncOptions } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BLACKBOX_BINARY } from "../fidelity/blackbox";
import { startPrometheusProcess, versionOf } from "../support/prometheus-process";
import { log } from "../support/run";
import { stopChild } from "../support/service";

export const PROMETHEUS_BINARY = "/usr/bin/prometheus";

/** Installs the peer's Debian packages where their binaries are missing (as root only). */
export function installPeer(): void {
  if (existsSync(PROMETHEUS_BINARY) && existsSync(BLACKBOX_BINARY)) return;
  const install = "apt-get install -y prometheus prometheus-blackbox-exporter";
  if (process.getuid?.() !== 0) throw new Error(`bench:peer needs ${PROMETHEUS_BINARY} and ${BLACKBOX_BINARY}: run it as root, or first: ${install}`);
  log(`installing the peer: ${install}`);
  const options: ExecFileSyncOptions = { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  execFileSync("apt-get", ["update", "-qq"], options);
  execFileSync("apt-get", ["install", "-y", "-qq", "prometheus", "prometheus-blackbox-exporter"], options);
}

/** One sample of a series: its target URL, when it was scraped (epoch ms) and its value. */
export interface PromSample {
  target: string;
  at: number;
  value: number;
}

const configOf = (targets: string[], blackbox: string, intervalSeconds: number) =>
  JSON.stringify({
    global: { scrape_interval: `${intervalSeconds}s` },
    scrape_configs: [
      {
        job_name: "blackbox",
        metrics_path: "/probe",
        params: { module: ["http_2xx"] },
        static_configs: [{ targets }],
        relabel_configs: [
          { source_labels: ["__address__"], target_label: "__param_target" },
          { source_labels: ["__param_target"], target_label: "instance" },
          { target_label: "__address__", replacement: blackbox },
        ],
      },
    ],
  });

export class Prometheus {
  private constructor(
    private readonly child: ChildProcess,
    private readonly url: string,
    private readonly dir: string,
  ) {}

  /** Starts it scraping blackbox_exporter at `blackbox` (host:port) for each of `targets` every `intervalSeconds`; resolves once it is ready. */
  static async start(targets: string[], blackbox: string, intervalSeconds: number): Promise<Prometheus> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-prometheus-"));
    // YAML is a superset of JSON.
    writeFileSync(path.join(dir, "prometheus.yml"), configOf(targets, blackbox, intervalSeconds));
    const args = [`--config.file=${path.join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(dir, "data")}`];
    const { child, url } = await startPrometheusProcess(PROMETHEUS_BINARY, args, "/-/ready");
    return new Prometheus(child, url, dir);
  }

  /** Its version, as `--version` says it. */
  static version(): string {
    return versionOf(PROMETHEUS_BINARY);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Every sample of `metric` scraped in [from, to) (epoch ms), of every target. */
  async samples(metric: string, from: number, to: number): Promise<PromSample[]> {
    const query = `${metric}[${Math.ceil((to - from) / 1000) + 1}s]`;
    const answer = await fetch(`${this.url}/api/v1/query?${new URLSearchParams({ query, time: String(to / 1000) })}`);
    const body = (await answer.json()) as { status: string; error?: string; data: { result: { metric: { instance: string }; values: [number, string][] }[] } };
    if (body.status !== "success") throw new Error(`prometheus answered ${query} with ${body.status}: ${body.error}`);
    return body.data.result.flatMap(({ metric: { instance }, values }) =>
      values.map(([at, value]) => ({ target: instance, at: at * 1000, value: Number(value) })).filter(({ at }) => at >= from && at < to),
    );
  }

  async stop(): Promise<void> {
    await stopChild(this.child);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
