import { Webhook } from "standardwebhooks";
import { createLogger } from "@vigil/logging";
import { openDatabase } from "@vigil/db";
import { Code } from "@connectrpc/connect";
import { MonitorStatus, Periodicity, Region } from "@vigil/proto";
import { startProviderServer, type Answer, type ProviderServer, type Received } from "../../../packages/notifications/test/support/provider-server";
import { DEFAULT_RETRY_DELAYS_MS, MAX_RETRY_AFTER_MS, parseRetryDelays, retryDelayMs } from "../src/alerting/retry-schedule";
import { startPipeline, type Pipeline } from "../src/pipeline";
import { storeResults } from "../src/results/store";
import { startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";
import { STATUS_RULES, testNotifications, testPipelineConfig } from "./support/control-plane";
import { eventually } from "../../../test/eventually";
import { checkResult, publishResults } from "./support/results";

describe("the retry schedule", () => {
  it("retries within 10 s, then within a minute, growing to about an hour in all", () => {
    const none = () => 0.5;
    const waits = DEFAULT_RETRY_DELAYS_MS.map((_, i) => retryDelayMs(DEFAULT_RETRY_DELAYS_MS, i + 1, null, none));
    expect(waits[0]).toBeLessThanOrEqual(10_000);
    expect(waits[1]).toBeLessThanOrEqual(60_000);
    const total = waits.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(50 * 60_000);
    expect(total).toBeLessThan(75 * 60_000);
    // Jitter stays within ±20 %.
    expect(retryDelayMs(DEFAULT_RETRY_DELAYS_MS, 1, null, () => 0)).toBe(4_000);
    expect(retryDelayMs(DEFAULT_RETRY_DELAYS_MS, 1, null, () => 1)).toBe(6_000);
  });

  it("honours Retry-After up to an hour", () => {
    expect(retryDelayMs(DEFAULT_RETRY_DELAYS_MS, 1, 7_000)).toBe(7_000);
    expect(retryDelayMs(DEFAULT_RETRY_DELAYS_MS, 1, 10 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
  });

  it("parses NOTIFICATION_RETRY_DELAYS", () => {
    expect(parseRetryDelays("1, 2.5,60")).toEqual([1_000, 2_500, 60_000]);
    expect(parseRetryDelays("1,x")).toBeNull();
    expect(parseRetryDelays("-1")).toBeNull();
  });
});

/** Retries after 0.3 s here, so that tests of retries end in seconds; the schedule itself is tested above. */
const QUICK_RETRIES = [300, 300, 300];

describe("delivering notifications (PostgreSQL, real Redis, providers as local servers)", () => {
  let api: TestApi;
  let writeKey: string;
  let provider: ProviderServer;
  /** How the provider answers, per path. */
  const answers = new Map<string, (request: Received) => Answer>();

  beforeAll(async () => {
    provider = await startProviderServer((request) => (answers.get(new URL(request.url, "http://x").pathname) ?? (() => ({ status: 200 })))(request));
    api = await startTestApi("postgres", { pipeline: { retryDelaysMs: QUICK_RETRIES } });
    writeKey = (await api.workspace()).write.key;
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });

  const sentTo = (path: string) => provider.received.filter((r) => new URL(r.url, "http://x").pathname === path);
  const monitor = async (name: string) => {
    const { monitor } = await api.client(writeKey).createHTTPMonitor({
      monitor: { name, url: `https://${name}.example.com/`, periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS] },
    });
    return monitor!.id;
  };
  /** A webhook channel posting to `path` on the provider server, linked to the monitors. */
  const webhook = async (path: string, monitorIds: string[]) => {
    const created = await api.notificationClient(writeKey).createNotification({
      notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds }),
    });
    return { id: created.notification!.id, secret: created.signingSecret };
  };
  const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();
  const fail = (id: string) => publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(3), "error")]);
  const deliveriesOf = (notificationId: string) => api.db.prisma.notificationDelivery.findMany({ where: { notificationId } });

  it("sends failed, degraded and recovered once each, signed, and nothing for creating or linking a channel", async () => {
    const id = await monitor("lifecycle");
    const now = Date.now();
    const secondsAgo = (s: number) => new Date(now - s * 1000).toISOString();
    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(20), "success")]);
    const hook = await webhook("/lifecycle", [id]);
    await api.notificationClient(writeKey).updateNotification({ id: hook.id, notification: { monitorIds: [id] } });
    await eventually(async () => expect(await api.db.prisma.monitor.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "active" }));
    expect(sentTo("/lifecycle")).toHaveLength(0);

    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(15), "error")]);
    await eventually(() => expect(sentTo("/lifecycle")).toHaveLength(1));
    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(10), "degraded")]);
    await eventually(() => expect(sentTo("/lifecycle")).toHaveLength(2));
    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(5), "success")]);
    await eventually(() => expect(sentTo("/lifecycle")).toHaveLength(3));

    const bodies = sentTo("/lifecycle").map((r) => {
      new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>);
      return r.json as { type: string; data: { incident: { id: string }; text: string; durationMs: number | null } };
    });
    expect(bodies.map((b) => b.type)).toEqual(["monitor.failed", "monitor.degraded", "monitor.recovered"]);
    expect(new Set(bodies.map((b) => b.data.incident.id)).size).toBe(1);
    expect(bodies[0]!.data.text).toContain("lifecycle");
    expect(bodies[0]!.data.text).toContain("hostA-ams");
    expect(bodies[0]!.data.text).toContain("HTTP 503");
    expect(bodies[2]!.data.durationMs).toBe(10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sentTo("/lifecycle")).toHaveLength(3);
    const list = await api.notificationClient(writeKey).listNotificationDeliveries({ id: hook.id });
    expect(list.deliveries.map((d) => [d.event, d.outcome, d.attempts, d.statusCode])).toEqual([
      ["monitor.recovered", "delivered", 1, 200],
      ["monitor.degraded", "delivered", 1, 200],
      ["monitor.failed", "delivered", 1, 200],
    ]);
  });

  it("answers an incident's timeline, region by region, and its deliveries to every channel by incident", async () => {
    const id = await monitor("timeline");
    const first = await webhook("/timeline-a", [id]);
    const second = await webhook("/timeline-b", [id]);
    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(15), "error")]);
    await eventually(() => expect(sentTo("/timeline-a")).toHaveLength(1));
    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(10), "success")]);
    await eventually(() => expect(sentTo("/timeline-b")).toHaveLength(2));

    const [incident] = (await api.incidents(writeKey).listIncidents({ monitorId: id })).incidents;
    const { timeline } = await api.incidents(writeKey).getIncident({ id: incident!.id });
    expect(timeline.map((e) => [e.type, e.status, e.regions.map((r) => [r.region, r.status, r.statusCode])])).toEqual([
      ["monitor.failed", MonitorStatus.ERROR, [[Region.HOSTA_AMS, MonitorStatus.ERROR, 503]]],
      ["monitor.recovered", MonitorStatus.ACTIVE, [[Region.HOSTA_AMS, MonitorStatus.ACTIVE, 200]]],
    ]);
    expect(timeline[0]!.regions[0]!.reason).toBe("http_status");

    const deliveriesOfIncident = async (key: string, request: { id?: string; incidentId: string }) =>
      (await api.notificationClient(key).listNotificationDeliveries(request)).deliveries.map((d) => [d.notificationId, d.event, d.outcome, d.incidentId]);
    await eventually(async () =>
      expect((await deliveriesOfIncident(writeKey, { incidentId: incident!.id })).sort()).toEqual(
        [first.id, second.id].flatMap((channelId) => [
          [channelId, "monitor.failed", "delivered", incident!.id],
          [channelId, "monitor.recovered", "delivered", incident!.id],
        ]).sort(),
      ),
    );
    expect(await deliveriesOfIncident(writeKey, { id: second.id, incidentId: incident!.id })).toEqual([
      [second.id, "monitor.recovered", "delivered", incident!.id],
      [second.id, "monitor.failed", "delivered", incident!.id],
    ]);
    // Another workspace learns nothing of it.
    const other = (await api.workspace()).read.key;
    expect(await deliveriesOfIncident(other, { incidentId: incident!.id })).toEqual([]);
    await expect(api.notificationClient(writeKey).listNotificationDeliveries({})).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "id: is required unless incidentId is given",
    });
  });

  it("delivers once with three attempts to a channel answering 500 twice, then 200", async () => {
    const id = await monitor("flaky");
    let calls = 0;
    answers.set("/flaky", () => (++calls <= 2 ? { status: 500, body: "upstream broke" } : { status: 200 }));
    const hook = await webhook("/flaky", [id]);
    await fail(id);
    await eventually(async () => expect((await deliveriesOf(hook.id))[0]).toMatchObject({ outcome: "delivered", attempts: 3, statusCode: 200, error: null }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const requests = sentTo("/flaky");
    expect(requests).toHaveLength(3);
    // Every attempt is the same message: receivers deduplicate on webhook-id.
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
  });

  it("waits as long as Retry-After says on a 429", async () => {
    const id = await monitor("throttled");
    let calls = 0;
    answers.set("/throttled", () => (++calls === 1 ? { status: 429, headers: { "retry-after": "2" }, body: "slow down" } : { status: 200 }));
    const hook = await webhook("/throttled", [id]);
    await fail(id);
    await eventually(async () => expect((await deliveriesOf(hook.id))[0]).toMatchObject({ outcome: "delivered", attempts: 2 }));
    const [first, second] = sentTo("/throttled");
    // Without Retry-After the retry would come after about 0.3 s.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900);
  });

  it("fails a delivery on a 400 at once, with the provider's answer, and never retries it", async () => {
    const id = await monitor("refused");
    answers.set("/refused", () => ({ status: 400, body: { error: "invalid_payload" } }));
    const hook = await webhook("/refused", [id]);
    await fail(id);
    await eventually(async () => expect((await deliveriesOf(hook.id))[0]).toMatchObject({ outcome: "failed", attempts: 1, statusCode: 400 }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(sentTo("/refused")).toHaveLength(1);
    const [delivery] = (await api.notificationClient(writeKey).listNotificationDeliveries({ id: hook.id })).deliveries;
    expect(delivery).toMatchObject({ event: "monitor.failed", outcome: "failed", attempts: 1, statusCode: 400 });
    expect(delivery!.error).toContain("invalid_payload");
    expect(delivery!.completedAt).toBeDefined();
  });

  it("lets a hanging channel delay no other", async () => {
    const id = await monitor("hanging");
    answers.set("/hangs", () => ({ status: 200, hang: true }));
    const slow = await webhook("/hangs", [id]);
    const fast = await webhook("/fast", [id]);
    await fail(id);
    await eventually(async () => expect((await deliveriesOf(fast.id))[0]?.outcome).toBe("delivered"));
    // The hanging provider has the request, and no answer yet: its delivery is still on its first attempt.
    expect(sentTo("/hangs")).toHaveLength(1);
    expect((await deliveriesOf(slow.id))[0]).toMatchObject({ outcome: "pending", attempts: 0 });
  });

  it("sends exactly one message per transition with two control planes consuming the results", async () => {
    const ids = await Promise.all(["twin-a", "twin-b", "twin-c"].map(monitor));
    await webhook("/twins", ids);
    // The second control plane has database connections and Redis connections of its own.
    const secondDb = await openDatabase(api.db.target);
    const second = await startPipeline(
      secondDb.prisma,
      testPipelineConfig(api.redisPrefix, { retryDelaysMs: QUICK_RETRIES }),
      createLogger("silent", "test"),
      testNotifications(secondDb.prisma, {}, api.notifications.box).setup,
    );
    try {
      const results = ids.flatMap((id) => [
        checkResult(id, "hostA-ams", secondsAgo(30), "success"),
        checkResult(id, "hostA-ams", secondsAgo(20), "error"),
        checkResult(id, "hostA-ams", secondsAgo(10), "success"),
      ]);
      // Each result twice, as a redelivery after a crash would send it.
      await publishResults(api.redisPrefix, [...results, ...results]);
      await eventually(() => expect(sentTo("/twins")).toHaveLength(6));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const types = sentTo("/twins").map((r) => `${(r.json as { data: { monitor: { id: string } } }).data.monitor.id}:${(r.json as { type: string }).type}`);
      expect(types.sort()).toEqual(ids.flatMap((id) => [`${id}:monitor.failed`, `${id}:monitor.recovered`]).sort());
    } finally {
      await second.stop();
      await secondDb.close();
    }
  });
  it("loses no delivery queued when the control plane restarts, and queues again what a crash left unqueued", async () => {
    const id = await monitor("restart");
    let calls = 0;
    answers.set("/restart", () => (++calls === 1 ? { status: 503 } : { status: 200 }));
    const hook = await webhook("/restart", [id]);
    // A second control plane, stopped while its delivery waits for a retry; a third takes over.
    const logger = createLogger("silent", "test");
    const slowRetries = testPipelineConfig(api.redisPrefix, { retryDelaysMs: [2_000, 2_000] });
    // This file's own control plane stops delivering (for good: this test is the file's last).
    await api.pipeline.deliveries.close();
    let replica: Pipeline = await startPipeline(api.db.prisma, slowRetries, logger, api.notifications.setup);
    await fail(id);
    await eventually(() => expect(sentTo("/restart")).toHaveLength(1));
    await replica.stop();
    replica = await startPipeline(api.db.prisma, slowRetries, logger, api.notifications.setup);
    try {
      await eventually(async () => expect((await deliveriesOf(hook.id))[0]).toMatchObject({ outcome: "delivered", attempts: 2 }));
      expect(sentTo("/restart")).toHaveLength(2);

      // A delivery committed but never queued (the process died in between) is queued by the sweep.
      const row = (await deliveriesOf(hook.id))[0]!;
      const lost = await api.db.prisma.notificationDelivery.create({
        data: { notificationId: hook.id, eventId: null, event: row.event, monitorId: id, eventAt: row.eventAt },
      });
      await api.db.prisma.notificationDelivery.delete({ where: { id: lost.id } });
      await api.db.prisma.notificationDelivery.update({ where: { id: row.id }, data: { outcome: "pending", completedAt: null } });
      expect(await replica.deliveries.sweep(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
      await eventually(() => expect(sentTo("/restart")).toHaveLength(3));

      // An event stored but whose first attempt never reached the queue: the sweep queues it too.
      const unqueued = await monitor("unqueued");
      await webhook("/unqueued", [unqueued]);
      const { eventIds } = await storeResults(api.db.prisma, [checkResult(unqueued, "hostA-ams", secondsAgo(3), "error")], STATUS_RULES);
      expect(eventIds).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sentTo("/unqueued")).toHaveLength(0);
      expect(await replica.deliveries.sweep(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
      await eventually(() => expect(sentTo("/unqueued")).toHaveLength(1));
    } finally {
      await replica.stop();
    }
  });

});
