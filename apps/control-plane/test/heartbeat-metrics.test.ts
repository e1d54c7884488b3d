/**
 * The Prometheus metrics of heartbeat monitors: real pings over HTTP to a real server, then its /metrics scraped.
 * The registry is the process's, shared by the servers of a test run, so counters are compared before and after.
 */
import { LIMITS } from "@vigil/domain";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { parseExposition, sampleValue, type Sample } from "./support/prometheus";

describe.each(BACKENDS)("heartbeat metrics (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let now = new Date("2026-11-29T06:00:00Z");

  beforeAll(async () => {
    // The test sweeps on its clock: the pipeline's own timer would race it.
    api = await startTestApi(backend, { clock: () => now, pipeline: { heartbeatSweepMs: 0 } });
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  async function scrape(): Promise<Sample[]> {
    const res = await api.fetch("/metrics");
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  }
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels) ?? NaN;
  async function heartbeat(name: string) {
    const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name, active: true, periodSeconds: 60n, graceSeconds: 0n } });
    return { id: monitor!.id, path: new URL(monitor!.pingUrl).pathname };
  }

  test("every outcome and refusal exists from the start at 0 or more, and the status gauge has every kind", async () => {
    const samples = await scrape();
    for (const outcome of ["success", "start", "fail"]) expect(value(samples, "vigil_heartbeat_pings_total", { outcome })).toBeGreaterThanOrEqual(0);
    for (const code of ["404", "429"]) expect(value(samples, "vigil_heartbeat_pings_refused_total", { code })).toBeGreaterThanOrEqual(0);
    expect(value(samples, "vigil_heartbeat_silences_total")).toBeGreaterThanOrEqual(0);
    for (const kind of ["http", "tcp", "dns", "heartbeat"]) {
      for (const status of ["active", "degraded", "error", "unknown"]) expect(value(samples, "vigil_monitors", { kind, status })).toBeGreaterThanOrEqual(0);
    }
  });

  test("counts pings by outcome, refusals by status, silences, and heartbeats by status", async () => {
    const before = await scrape();
    const job = await heartbeat("job");
    const quiet = await heartbeat("quiet");
    const ping = async (path: string) => (await api.fetch(path, { method: "POST" })).status;
    expect([await ping(`${job.path}/start`), await ping(job.path), await ping(`${job.path}/0`), await ping(`${job.path}/fail`), await ping(`${job.path}/2`)]).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect([await ping(`/v1/ping/${"A".repeat(32)}`), await ping(`${job.path}/log`)]).toEqual([404, 404]);
    // Over the limit of one ping URL: whatever the second holds, each 429 answered is counted. A burst on a
    // busy machine may straddle two seconds and fit in both: three times the limit cannot, unless it takes
    // three, and then it goes again.
    let [refused, accepted] = [0, 0];
    for (let round = 0; round < 5 && refused === 0; round++) {
      const burst = await Promise.all(Array.from({ length: 3 * LIMITS.pingsPerSecondPerToken }, () => ping(quiet.path)));
      refused += burst.filter((status) => status === 429).length;
      accepted += burst.filter((status) => status === 200).length;
      expect(burst.every((status) => status === 429 || status === 200)).toBe(true);
    }
    expect(refused).toBeGreaterThan(0);

    // The quiet one's last success is now; a minute and a second later it is silent.
    now = new Date(now.getTime() + 61_000);
    expect(await api.pipeline.silence.sweep()).toBe(1);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect({
      success: delta("vigil_heartbeat_pings_total", { outcome: "success" }),
      start: delta("vigil_heartbeat_pings_total", { outcome: "start" }),
      fail: delta("vigil_heartbeat_pings_total", { outcome: "fail" }),
      notFound: delta("vigil_heartbeat_pings_refused_total", { code: "404" }),
      tooMany: delta("vigil_heartbeat_pings_refused_total", { code: "429" }),
      silences: delta("vigil_heartbeat_silences_total"),
    }).toEqual({ success: 2 + accepted, start: 1, fail: 2, notFound: 2, tooMany: refused, silences: 1 });
    // Both failed: job by its last ping (exit code 2), quiet by silence.
    expect(delta("vigil_monitors", { kind: "heartbeat", status: "error" })).toBe(2);

    // A success recovers one; the gauge follows at the next scrape.
    expect(await ping(job.path)).toBe(200);
    const recovered = await scrape();
    expect(value(recovered, "vigil_monitors", { kind: "heartbeat", status: "error" })).toBe(value(after, "vigil_monitors", { kind: "heartbeat", status: "error" }) - 1);
    expect(value(recovered, "vigil_monitors", { kind: "heartbeat", status: "active" })).toBe(value(after, "vigil_monitors", { kind: "heartbeat", status: "active" }) + 1);
  });
});
