/**
 * slo.burn_rate end to end: results stored as the ingest stores them, the sweep run on a fake clock (twice at once, as two
 * control planes would), and the alert delivered to a local webhook receiver once per episode, then its end.
 */
import type { Client } from "@connectrpc/connect";
import { MonitorService, Periodicity } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import type { ResultMessage } from "@vigil/queue";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { storeResults } from "../src/results/store";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";
import { checkResult } from "./support/results";

const MINUTE = 60_000;

interface Envelope {
  type: string;
  data: { incident: unknown; slo: { objective: string; target: number; burnRate1h: number; burnRate6h: number; episodeId: string } | null; text: string };
}

describe.each(BACKENDS)("SLO burn-rate alerts on %s", (backend) => {
  let api: TestApi;
  let provider: ProviderServer;
  let client: Client<typeof MonitorService>;
  let channels: Client<typeof NotificationService>;
  const start = new Date(Date.now() - 10 * 60 * MINUTE);
  let now = start;
  let n = 0;

  beforeAll(async () => {
    provider = await startProviderServer();
    // The tests drive the sweep on their clock: the pipeline's own timer would race them.
    api = await startTestApi(backend, { clock: () => now, pipeline: { sloSweepMs: 0 } });
    const keys = await api.workspace();
    client = api.client(keys.write.key);
    channels = api.notificationClient(keys.write.key);
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });

  async function monitorWithWebhook(availabilityObjective: number) {
    const path = `/slo/${++n}`;
    const { monitor } = await client.createTCPMonitor({ monitor: { name: `db ${n}`, uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_1M, availabilityObjective } });
    await channels.createNotification({ notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds: [monitor!.id] }) });
    const sent = () => provider.received.filter((r) => r.url === path).map((r) => r.json as Envelope).filter((e) => e.type.startsWith("slo."));
    return { id: monitor!.id, sent };
  }

  /** One check a minute over [from, to) minutes after `start`, failing where `fails(minute)`. */
  const checks = (id: string, from: number, to: number, fails: (minute: number) => boolean): ResultMessage[] =>
    Array.from({ length: to - from }, (_, i) => checkResult(id, "hostA-ams", new Date(start.getTime() + (from + i) * MINUTE).toISOString(), fails(from + i) ? "error" : "success"));
  const sweepAt = async (minute: number) => {
    now = new Date(start.getTime() + minute * MINUTE);
    // Two control planes sweeping at once: each start and end is still recorded once.
    await Promise.all([api.pipeline.sloBurnAlerts.sweep(now), api.pipeline.sloBurnAlerts.sweep(now)]);
  };

  it("alerts once when the budget burns fast over 1 h and 5 min, and ends the episode once when the burn stops", async () => {
    const fast = await monitorWithWebhook(99);
    // Five good hours, then an hour with every other check failing: a burn rate of 50 over the hour and the last 5 minutes.
    await storeResults(api.db.prisma, [...checks(fast.id, 0, 300, () => false), ...checks(fast.id, 300, 360, (m) => m % 2 === 0)], STATUS_RULES);
    await sweepAt(360);
    await eventually(async () => expect(fast.sent().map((e) => e.type)).toEqual(["slo.burn_rate"]));
    const [alert] = fast.sent();
    expect(alert!.data).toMatchObject({ incident: null, slo: { objective: "availability", target: 99 } });
    expect(alert!.data.slo!.burnRate1h).toBeCloseTo(50, 6);
    expect(alert!.data.text).toContain("burns its error budget too fast: availability objective 99 %, burn rate 50.0x over 1 h");

    // Still burning a minute later: nothing more.
    await storeResults(api.db.prisma, checks(fast.id, 360, 361, () => true), STATUS_RULES);
    await sweepAt(361);
    // The checks turn good: after 30 clean minutes neither pair of windows holds.
    await storeResults(api.db.prisma, checks(fast.id, 361, 395, () => false), STATUS_RULES);
    await sweepAt(380);
    await sweepAt(395);
    await eventually(async () => expect(fast.sent().map((e) => e.type)).toEqual(["slo.burn_rate", "slo.burn_rate_ended"]));
    const [, ended] = fast.sent();
    expect(ended!.data.slo!.episodeId).toBe(alert!.data.slo!.episodeId);
    await sweepAt(396);
    expect(await api.db.prisma.sloBurnEpisode.count({ where: { monitorId: fast.id } })).toBe(1);
    expect(await api.db.prisma.alertEvent.count({ where: { monitorId: fast.id, type: { startsWith: "slo." } } })).toBe(2);
  });

  it("sends nothing for a slow burn (2 times the sustainable rate over 6 hours), nor for a monitor without objectives", async () => {
    const slow = await monitorWithWebhook(99);
    const none = await monitorWithWebhook(0);
    // 2 % of checks failing, spread out: a budget spent in 15 days, not worth a page.
    await storeResults(api.db.prisma, [...checks(slow.id, 0, 360, (m) => m % 50 === 7), ...checks(none.id, 0, 360, () => true)], STATUS_RULES);
    await sweepAt(360);
    await sweepAt(361);
    expect(await api.db.prisma.sloBurnEpisode.count({ where: { monitorId: { in: [slow.id, none.id] } } })).toBe(0);
    expect([slow.sent(), none.sent()]).toEqual([[], []]);
  });
});
