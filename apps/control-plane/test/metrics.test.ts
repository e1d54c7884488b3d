import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { RegionId } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import { Periodicity, Region } from "@vigil/proto";
import { connectRedis, slotIndexKey, slotMembersKey } from "@vigil/queue";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { closedPort } from "../../agent/test/support/targets";
import { startAgent, type AgentProcess } from "../../agent/test/support/processes";
import { redisServerUrl } from "../../../test/redis";
import { loadConfig } from "../src/config";
import { apiPartsOf, startApiServer } from "../src/server";
import { scrape as scrapeThisProcess } from "../src/metrics/endpoint";
import { CheckScheduler } from "../src/scheduling/scheduler";
import { startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";
import { eventually } from "../../../test/eventually";
import { metricNamesIn, parseExposition, sampleValue, type Sample } from "./support/prometheus";

const repo = resolve(__dirname, "../../..");
const REGION = "hostA-ams";

/** Every metric name the Grafana dashboard's queries and variables select. */
function dashboardMetricNames(): string[] {
  const dashboard = JSON.parse(readFileSync(resolve(repo, "deploy/grafana/vigil.json"), "utf8")) as {
    panels: { targets?: { expr: string }[]; panels?: { targets?: { expr: string }[] }[] }[];
    templating: { list: { type: string; definition?: string }[] };
  };
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const variables = dashboard.templating.list
    .filter((variable) => variable.type === "query")
    .map((variable) => /^label_values\((\w+),/.exec(variable.definition ?? "")?.[1] ?? `unreadable variable ${variable.definition}`);
  return [...queries.flatMap(metricNamesIn), ...variables];
}

/** Every metric name the alert rules' expressions select. */
function alertMetricNames(): string[] {
  const rules = parseYaml(readFileSync(resolve(repo, "deploy/prometheus/alerts.yaml"), "utf8")) as { groups: { rules: { expr: string }[] }[] };
  return rules.groups.flatMap((group) => group.rules.flatMap((rule) => metricNamesIn(rule.expr)));
}

/**
 * A control plane (API, scheduling, ingest, deliveries) with a real agent
 * process: checks run end to end, then both /metrics endpoints are scraped.
 */
describe("Prometheus metrics of a control plane and an agent", () => {
  let api: TestApi;
  let agent: AgentProcess;
  let provider: ProviderServer;
  const target = http.createServer((_req, res) => res.end("ok"));
  let cpSamples: Sample[];
  let agentSamples: Sample[];
  let upId: string;
  let monitors: ReturnType<TestApi["client"]>;

  const scrape = async (url: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    return parseExposition(await res.text());
  };
  const scrapeControlPlane = () => scrape(`${api.baseUrl}/metrics`);
  const scrapeAgent = () => scrape(`http://127.0.0.1:${agent.healthPort}/metrics`);

  beforeAll(async () => {
    await new Promise<void>((done) => target.listen(0, "127.0.0.1", done));
    provider = await startProviderServer();
    api = await startTestApi("pglite");
    agent = await startAgent({ REGION, REDIS_URL: redisServerUrl(), REDIS_PREFIX: api.redisPrefix });
    const key = (await api.workspace()).write.key;
    monitors = api.client(key);
    const regions = [Region.HOSTA_AMS];
    const up = await monitors.createHTTPMonitor({
      monitor: { name: "up", url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`, periodicity: Periodicity.PERIODICITY_1H, regions, retry: 0n },
    });
    const down = await monitors.createTCPMonitor({
      monitor: { name: "down", uri: `127.0.0.1:${await closedPort()}`, periodicity: Periodicity.PERIODICITY_1H, regions, retry: 0n },
    });
    // The failing monitor's incident is announced on a Slack channel (a local double).
    await api.notificationClient(key).createNotification({
      notification: channel("slack", { webhookUrl: `${provider.url}/services/T1/B1/x` }, { monitorIds: [down.monitor!.id] }),
    });
    upId = up.monitor!.id;
    await monitors.triggerMonitor({ id: upId });
    await monitors.triggerMonitor({ id: down.monitor!.id });
    await provider.waitFor(1);
    await api.fetch("/status/no-such-page");
    await api.fetch("/status/no-such-page");
    cpSamples = await eventually(async () => {
      const samples = await scrapeControlPlane();
      expect(sampleValue(samples, "vigil_results_ingest_batch_size_sum")).toBeGreaterThanOrEqual(2);
      expect(sampleValue(samples, "vigil_notification_deliveries_total", { provider: "slack", outcome: "delivered" })).toBe(1);
      expect(sampleValue(samples, "vigil_scheduler_reconciliation_duration_seconds_count")).toBeGreaterThanOrEqual(1);
      return samples;
    });
    agentSamples = await scrapeAgent();
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await api?.close();
    await provider?.close();
    target.close();
  });

  it("counts the agent's checks by kind, region and status, with their duration", () => {
    expect(sampleValue(agentSamples, "vigil_checks_total", { kind: "http", region: REGION, status: "success" })).toBe(1);
    expect(sampleValue(agentSamples, "vigil_checks_total", { kind: "tcp", region: REGION, status: "error" })).toBe(1);
    expect(sampleValue(agentSamples, "vigil_checks_total", { kind: "dns", region: REGION, status: "success" })).toBe(0);
    expect(sampleValue(agentSamples, "vigil_check_duration_seconds_count", { kind: "http", region: REGION })).toBe(1);
    expect(sampleValue(agentSamples, "vigil_check_duration_seconds_count", { kind: "tcp", region: REGION })).toBe(1);
  });

  it("labels every series of the agent, process defaults included, with its region", () => {
    expect(agentSamples.filter((sample) => sample.labels.region !== REGION)).toEqual([]);
    expect(sampleValue(agentSamples, "nodejs_eventloop_lag_seconds", { region: REGION })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(agentSamples, "process_cpu_seconds_total", { region: REGION })).toBeGreaterThan(0);
  });

  it("counts API calls by service, method and code, with their latency", () => {
    const created = { service: "monitor.v1.MonitorService", method: "CreateHTTPMonitor", code: "ok" };
    expect(sampleValue(cpSamples, "vigil_api_requests_total", created)).toBe(1);
    expect(sampleValue(cpSamples, "vigil_api_requests_total", { method: "TriggerMonitor", code: "ok" })).toBe(2);
    expect(sampleValue(cpSamples, "vigil_api_request_duration_seconds_count", { service: created.service, method: "TriggerMonitor" })).toBe(2);
  });

  it("measures result ingest, the results stream and the region's queue", () => {
    expect(sampleValue(cpSamples, "vigil_results_ingest_batch_size_sum")).toBe(2);
    expect(sampleValue(cpSamples, "vigil_results_ingest_duration_seconds_count")).toBe(sampleValue(cpSamples, "vigil_results_ingest_batch_size_count"));
    // Stored results are acknowledged and deleted: nothing is left to read.
    expect(sampleValue(cpSamples, "vigil_results_stream_length")).toBe(0);
    expect(sampleValue(cpSamples, "vigil_results_consumer_lag")).toBe(0);
    expect(sampleValue(cpSamples, "vigil_results_pending")).toBe(0);
    expect(sampleValue(cpSamples, "vigil_queue_depth", { region: REGION })).toBe(0);
    expect(sampleValue(cpSamples, "vigil_queue_oldest_job_age_seconds", { region: REGION })).toBe(0);
    expect(sampleValue(cpSamples, "vigil_redis_reachable")).toBe(1);
  });

  it("counts due jobs waiting in a region without agents, and the age of the longest-waiting one", async () => {
    const queue = api.pipeline.scheduler.queue("hostC-us-east4");
    const data = { monitorId: "m", kind: "tcp", trigger: "manual", config: {} };
    const hourAgo = Date.now() - 3_600_000;
    // One asked for on demand, one scheduled (prioritized), one delayed that came due (no agent moved it), one not due yet.
    await queue.add("check", data, { timestamp: hourAgo });
    await queue.add("check", data, { priority: 10, timestamp: hourAgo + 60_000 });
    await queue.add("check", data, { delay: 200 });
    await queue.add("check", data, { delay: 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const samples = await scrapeControlPlane();
    expect(sampleValue(samples, "vigil_queue_depth", { region: "hostC-us-east4" })).toBe(3);
    expect(sampleValue(samples, "vigil_queue_oldest_job_age_seconds", { region: "hostC-us-east4" })).toBeGreaterThanOrEqual(3_600);
    await queue.obliterate({ force: true });
  });

  it("still answers while Redis does not, saying it could not read the queues", async () => {
    const unreachable = connectRedis(`redis://127.0.0.1:${await closedPort()}`, "metrics-test");
    unreachable.on("error", () => {});
    const scheduler = new CheckScheduler(unreachable, api.redisPrefix, ["hostA-ams"]);
    try {
      // Each region's queue is read once; its connection errors are expected here.
      const queue = (region: RegionId) => scheduler.queue(region).on("error", () => {});
      const { body } = await scrapeThisProcess({ queue, redis: unreachable, prefix: api.redisPrefix });
      expect(sampleValue(parseExposition(body), "vigil_redis_reachable")).toBe(0);
    } finally {
      unreachable.disconnect();
    }
  });

  it("counts deliveries by provider and outcome, and every provider's series exist from the start", () => {
    expect(sampleValue(cpSamples, "vigil_notification_delivery_duration_seconds_count", { provider: "slack" })).toBe(1);
    expect(sampleValue(cpSamples, "vigil_notification_deliveries_total", { provider: "slack", outcome: "failed" })).toBe(0);
    expect(sampleValue(cpSamples, "vigil_notification_deliveries_total", { provider: "pagerduty", outcome: "delivered" })).toBe(0);
  });

  it("times reconciliations and counts the drift they find", async () => {
    expect(sampleValue(cpSamples, "vigil_scheduler_last_reconciliation_timestamp_seconds")).toBeGreaterThan(0);
    // Scheduled only now, so that no scheduled check ran before the counts above were read.
    await monitors.updateHTTPMonitor({ id: upId, monitor: { active: true } });
    const { redis, scheduler } = api.pipeline;
    // Redis loses a monitor's schedule, and gains one of no monitor.
    const { slot, member } = (await scheduler.scheduledIn(REGION, upId))!;
    await redis.hdel(slotMembersKey(REGION, slot.id, api.redisPrefix), upId);
    await redis.hset(slotMembersKey(REGION, "1h:0", api.redisPrefix), "no-such-monitor", JSON.stringify({ ...member, check: { ...member.check, monitorId: "no-such-monitor" } }));
    await redis.sadd(slotIndexKey(REGION, api.redisPrefix), "1h:0");
    const before = await scrapeControlPlane();
    await api.pipeline.reconcile();
    const after = await scrapeControlPlane();
    const drift = (samples: Sample[], kind: string) => sampleValue(samples, "vigil_scheduler_drift_total", { drift: kind }) ?? NaN;
    expect(drift(after, "missing") - drift(before, "missing")).toBe(1);
    expect(drift(after, "stale") - drift(before, "stale")).toBe(1);
    const runs = (samples: Sample[]) => sampleValue(samples, "vigil_scheduler_reconciliation_duration_seconds_count") ?? NaN;
    expect(runs(after) - runs(before)).toBe(1);
  });

  it("counts status page requests and their cache hits and misses", () => {
    expect(sampleValue(cpSamples, "vigil_status_page_requests_total", { representation: "html" })).toBe(2);
    const hits = sampleValue(cpSamples, "vigil_status_page_cache_hits_total") ?? NaN;
    const misses = sampleValue(cpSamples, "vigil_status_page_cache_misses_total") ?? NaN;
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(hits + misses).toBe(2);
  });

  it("reports the process defaults, event-loop lag included", () => {
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes"]) {
      expect(sampleValue(cpSamples, name)).toBeGreaterThanOrEqual(0);
    }
  });

  it("names only existing metrics in the Grafana dashboard and the alert rules", () => {
    const exposed = new Set([...cpSamples, ...agentSamples].map((sample) => sample.name));
    const named = [...new Set([...dashboardMetricNames(), ...alertMetricNames()])];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("has alert rules and a Prometheus configuration promtool accepts, rules that fire as their unit tests say", () => {
    const rules = resolve(repo, "deploy/prometheus/alerts.yaml");
    expect(execFileSync("promtool", ["check", "rules", rules], { encoding: "utf8" })).toContain("SUCCESS");
    execFileSync("promtool", ["test", "rules", resolve(repo, "deploy/prometheus/alerts.test.yaml")], { encoding: "utf8" });
    expect(execFileSync("promtool", ["check", "config", resolve(repo, "deploy/prometheus/prometheus.yml")], { encoding: "utf8" })).toContain("SUCCESS");
  });

  it("answers /metrics only when METRICS_ENABLED is not false, and refuses a bad value by name", async () => {
    expect(loadConfig({}).metricsEnabled).toBe(true);
    expect(loadConfig({ METRICS_ENABLED: "false" }).metricsEnabled).toBe(false);
    expect(() => loadConfig({ METRICS_ENABLED: "yes" })).toThrow(/METRICS_ENABLED.*must be true or false/);
    const { pipeline, db } = api;
    const listener = await startApiServer({
      prisma: db.prisma,
      ...apiPartsOf(pipeline, api.redisPrefix),
      notifications: { settings: api.notifications.settings, secrets: api.notifications.box },
      logger: createLogger("silent", "test"),
      port: 0,
      host: "127.0.0.1",
      metricsEnabled: false,
    });
    try {
      expect((await fetch(`http://127.0.0.1:${listener.address().port}/metrics`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});
