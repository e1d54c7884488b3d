// The peer of bench/peer.ts: blackbox_exporter with the Debian package's configuration, scraped by Prometheus for
// every target every 30 s (bench/peer/prometheus.ts). Its latency of a check is the probe's probe_duration_seconds.
import { Blackbox } from "../fidelity/blackbox";
import { running, type Reported, type SystemUnderTest } from "./measure";
import { Prometheus } from "./prometheus";
import type { Targets } from "./targets";

export const PEER = "blackbox_exporter + Prometheus";

export async function startPeer(targets: Targets, periodSeconds: number): Promise<SystemUnderTest> {
  const blackbox = await Blackbox.start();
  let prometheus: Prometheus | undefined;
  const stop = async () => {
    await prometheus?.stop();
    await blackbox.stop();
  };
  try {
    prometheus = await Prometheus.start(
      targets.urls.map((target) => target.url),
      blackbox.address,
      periodSeconds,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const started = prometheus;
  return {
    processes: { prometheus: running(started.pid), blackbox_exporter: running(blackbox.pid) },
    threaded: {},
    async reported(from: number, to: number): Promise<Reported[]> {
      const failed = (await started.samples("probe_success", from, to)).filter((sample) => sample.value !== 1);
      if (failed.length > 0) throw new Error(`${PEER}: ${failed.length} probes failed, e.g. of ${failed[0]!.target}`);
      return (await started.samples("probe_duration_seconds", from, to)).map(({ target, value }) => ({ delayMs: targets.delayOf(target), latencyMs: value * 1000 }));
    },
    stop,
  };
}
