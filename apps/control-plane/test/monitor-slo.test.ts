/**
 * Service level objectives through the API: the objective fields on every kind that stores results, their rules, and
 * GetMonitorSlo's figures over a month of results stored as the ingest stores them.
 */
import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import { rejection } from "./support/codes";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { checkResult } from "./support/results";

const periodicity = Periodicity.PERIODICITY_1M;
const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
const MINUTE = 60_000;


describe.each(BACKENDS)("monitor SLOs on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  const client = () => api.client(ws.write.key);

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  it("keeps the objectives of every kind that stores results, 0 (none) by default, and changes them with or without a mask", async () => {
    const objectives = { availabilityObjective: 99.95, latencyObjectiveMs: 500n, latencyObjectivePercent: 95 };
    const http = (await client().createHTTPMonitor({ monitor: { name: "h", url: "https://example.com", periodicity, ...objectives } })).monitor!;
    const tcp = (await client().createTCPMonitor({ monitor: { name: "t", uri: "example.com:443", periodicity, ...objectives } })).monitor!;
    const dns = (await client().createDNSMonitor({ monitor: { name: "d", uri: "example.com", periodicity, ...objectives } })).monitor!;
    const grpc = (await client().createGRPCMonitor({ monitor: { name: "g", uri: "example.com:443", periodicity, ...objectives } })).monitor!;
    for (const monitor of [http, tcp, dns, grpc]) expect(monitor).toMatchObject(objectives);
    const plain = (await client().createTCPMonitor({ monitor: { name: "p", uri: "example.com:443", periodicity } })).monitor!;
    expect(plain).toMatchObject({ availabilityObjective: 0, latencyObjectiveMs: 0n, latencyObjectivePercent: 0 });

    const listed = await api.client(ws.read.key).listMonitors({ limit: 100 });
    expect(listed.dnsMonitors.find((m) => m.id === dns.id)).toMatchObject(objectives);
    // Without a mask, what is not sent stays; with one naming the latency pair, absent clears it.
    expect((await client().updateTCPMonitor({ id: tcp.id, monitor: { availabilityObjective: 99.5 } })).monitor).toMatchObject({ ...objectives, availabilityObjective: 99.5 });
    const cleared = (await client().updateGRPCMonitor({ id: grpc.id, monitor: {}, updateMask: mask("latency_objective_ms", "latency_objective_percent") })).monitor!;
    expect(cleared).toMatchObject({ availabilityObjective: 99.95, latencyObjectiveMs: 0n, latencyObjectivePercent: 0 });
  });

  it("refuses objectives outside their rules with invalid_argument naming the field, and writes nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ availabilityObjective: 49.999 }, "monitor.availabilityObjective: must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals"],
      [{ availabilityObjective: 100 }, "monitor.availabilityObjective: must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals"],
      [{ availabilityObjective: 99.9991 }, "monitor.availabilityObjective: must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals"],
      [{ availabilityObjective: -1 }, "monitor.availabilityObjective: must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals"],
      [{ latencyObjectiveMs: 120_001n, latencyObjectivePercent: 95 }, "monitor.latencyObjectiveMs: must be 0 (no objective) or an integer from 1 to 120000"],
      [{ latencyObjectiveMs: 500n }, "monitor.latencyObjectivePercent: must be set (not 0) when latencyObjectiveMs is: a latency objective is a threshold and a percent of checks under it"],
      [{ latencyObjectivePercent: 95 }, "monitor.latencyObjectiveMs: must be set (not 0) when latencyObjectivePercent is: a latency objective is a threshold and a percent of checks under it"],
    ];
    for (const [fields, message] of cases) {
      const refused = await rejection(client().createHTTPMonitor({ monitor: { name: "refused", url: "https://example.com", periodicity, ...fields } }));
      expect([refused.code, refused.rawMessage]).toEqual([Code.InvalidArgument, message]);
    }
    expect((await client().listMonitors({ limit: 100 })).httpMonitors.filter((m) => m.name === "refused")).toEqual([]);
    // Both edges are taken.
    for (const availabilityObjective of [50, 99.999]) {
      expect((await client().createHTTPMonitor({ monitor: { name: "edge", url: "https://example.com", periodicity, availabilityObjective } })).monitor!.availabilityObjective).toBe(availabilityObjective);
    }
    // An update's merged configuration is checked: dropping half of the latency pair is refused.
    const paired = (await client().createTCPMonitor({ monitor: { name: "pair", uri: "example.com:1", periodicity, latencyObjectiveMs: 300n, latencyObjectivePercent: 99 } })).monitor!;
    const half = await rejection(client().updateTCPMonitor({ id: paired.id, monitor: { description: "changed" }, updateMask: mask("latency_objective_ms", "description") }));
    expect([half.code, half.rawMessage]).toEqual([
      Code.InvalidArgument,
      "monitor.latencyObjectiveMs: must be set (not 0) when latencyObjectivePercent is: a latency objective is a threshold and a percent of checks under it",
    ]);
    expect((await client().getMonitor({ id: paired.id })).monitor!.config.value).toMatchObject({ latencyObjectiveMs: 300n, description: "" });
  });

  it("gives the figures over the 30-day window, the budget left and the burn rates over 1 and 6 hours", async () => {
    const monitor = (
      await client().createHTTPMonitor({
        monitor: { name: "slo", url: "https://example.com", periodicity, availabilityObjective: 99, latencyObjectiveMs: 500n, latencyObjectivePercent: 90 },
      })
    ).monitor!;
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * MINUTE).toISOString();
    const results: ResultMessage[] = [];
    // Twenty days of the month before: 99 good checks and a failure a day.
    for (let day = 1; day <= 20; day++) {
      for (let i = 0; i < 99; i++) results.push(checkResult(monitor.id, "hostA-ams", at(day * 1440 + i), "success"));
      results.push(checkResult(monitor.id, "hostB-fra", at(day * 1440 + 100), "error"));
    }
    // Outside the window: counts for nothing.
    for (let i = 0; i < 50; i++) results.push(checkResult(monitor.id, "hostA-ams", at(35 * 1440 + i), "error"));
    // Hours 2 to 5 ago: 20 good checks; the last hour: 8 good, 1 slow (800 ms), 1 failure.
    for (let i = 0; i < 20; i++) results.push(checkResult(monitor.id, "hostA-ams", at(120 + i * 10), "success"));
    for (let i = 0; i < 8; i++) results.push(checkResult(monitor.id, "hostA-ams", at(10 + i * 5), "success"));
    results.push(checkResult(monitor.id, "hostA-ams", at(3), "success", { latencyMs: 800 }));
    results.push(checkResult(monitor.id, "hostA-ams", at(2), "error"));
    await storeResults(api.db.prisma, results, STATUS_RULES);

    const slo = await api.client(ws.read.key).getMonitorSlo({ id: monitor.id });
    expect(slo.windowDays).toBe(30n);
    const availability = slo.availability!;
    expect([availability.objective, availability.total, availability.good]).toEqual([99, 2030n, 2009n]);
    expect(availability.actual).toBeCloseTo((100 * 2009) / 2030, 9);
    expect(availability.budgetRemaining).toBeCloseTo(100 * (1 - 21 / 2030 / 0.01), 6);
    expect(availability.burnRate1h).toBeCloseTo(1 / 10 / 0.01, 6);
    expect(availability.burnRate6h).toBeCloseTo(1 / 30 / 0.01, 6);
    const latency = slo.latency!;
    expect([latency.objective, latency.thresholdMs, latency.total, latency.good]).toEqual([90, 500n, 2009n, 2008n]);
    expect(latency.budgetRemaining).toBeCloseTo(100 * (1 - 1 / 2009 / 0.1), 6);
    expect(latency.burnRate1h).toBeCloseTo(1 / 9 / 0.1, 6);
    expect(latency.burnRate6h).toBeCloseTo(1 / 29 / 0.1, 6);
  });

  it("gives no figures for a monitor without objectives, or without checks, and not_found for an unknown id", async () => {
    const bare = (await client().createTCPMonitor({ monitor: { name: "bare", uri: "example.com:1", periodicity } })).monitor!;
    const none = await client().getMonitorSlo({ id: bare.id });
    expect([none.availability, none.latency]).toEqual([undefined, undefined]);
    const quiet = (await client().createTCPMonitor({ monitor: { name: "quiet", uri: "example.com:1", periodicity, availabilityObjective: 99.9 } })).monitor!;
    const empty = (await client().getMonitorSlo({ id: quiet.id })).availability!;
    expect(empty).toMatchObject({ objective: 99.9, total: 0n, good: 0n });
    expect([empty.actual, empty.budgetRemaining, empty.burnRate1h, empty.burnRate6h]).toEqual([undefined, undefined, undefined, undefined]);
    const beat = (await client().createHeartbeatMonitor({ monitor: { name: "beat" } })).monitor!;
    expect((await client().getMonitorSlo({ id: beat.id })).availability).toBeUndefined();
    expect((await rejection(client().getMonitorSlo({ id: "no-such-monitor" }))).code).toBe(Code.NotFound);
  });
});
