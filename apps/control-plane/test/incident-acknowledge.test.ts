import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Webhook } from "standardwebhooks";
import { IncidentService, Periodicity } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";
import { sessionClient, signedInPerson } from "./support/people";
import { checkResult, publishResults } from "./support/results";
import { tokenHashOf } from "../src/accounts/invitations";
import { Acknowledgements } from "../src/alerting/acknowledgements";

const MINUTE = 60_000;

interface Envelope {
  type: string;
  id: string;
  data: {
    incident: { id: string } | null;
    status: string;
    ackLink: string | null;
    reminder: number | null;
    durationMs: number | null;
    acknowledgement: { by: string; at: string } | null;
    text: string;
  };
}

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => "ok",
    (e: unknown) => Code[ConnectError.from(e).code],
  );

describe.each(BACKENDS)("acknowledging incidents and reminders on %s", (backend) => {
  let api: TestApi;
  let provider: ProviderServer;
  let slug: string;
  let writeKey: { id: string; key: string };
  let readKey: string;
  let incidents: Client<typeof IncidentService>;
  let channels: Client<typeof NotificationService>;
  /** The clock of reminders and links: the real one until a test sets it. */
  let now: Date | null = null;
  let monitors = 0;

  beforeAll(async () => {
    provider = await startProviderServer();
    api = await startTestApi(backend, { clock: () => now ?? new Date() });
    const keys = await api.workspace();
    [slug, writeKey, readKey] = [keys.slug, keys.write, keys.read.key];
    incidents = api.incidents(writeKey.key);
    channels = api.notificationClient(writeKey.key);
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });
  afterEach(() => {
    now = null;
  });

  /** A monitor with a webhook channel of its own (path /hooks/<n>), reminding every `reminderMinutes`. */
  async function monitorWithWebhook(reminderMinutes = 0, name = "api") {
    const n = ++monitors;
    const { monitor } = await api.client(writeKey.key).createHTTPMonitor({
      monitor: { name: `${name} ${n}`, url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M },
    });
    const path = `/hooks/${n}`;
    const created = await channels.createNotification({
      notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds: [monitor!.id], reminderMinutes }),
    });
    const received = () => provider.received.filter((r) => r.url === path).map((r) => ({ ...(r.json as Envelope), request: r }));
    return { id: monitor!.id, channelId: created.notification!.id, secret: created.signingSecret, received };
  }

  /** Fails the monitor (its check started `startedAt`) and waits for its alert; answers the incident and the alert. */
  async function fail(monitor: Awaited<ReturnType<typeof monitorWithWebhook>>, startedAt = new Date(Date.now() - 3_000)) {
    await publishResults(api.redisPrefix, [checkResult(monitor.id, "hostA-ams", startedAt.toISOString(), "error")]);
    const alert = await eventually(() => {
      const found = monitor.received().findLast((e) => e.type === "monitor.failed");
      if (!found) throw new Error("no alert yet");
      return found;
    });
    return { incidentId: alert.data.incident!.id, startedAt, alert };
  }

  const recover = async (monitorId: string, startedAt: Date) => {
    await publishResults(api.redisPrefix, [checkResult(monitorId, "hostA-ams", startedAt.toISOString(), "success")]);
    await eventually(async () => (await incidents.listIncidents({ monitorId, openOnly: true })).totalSize === 0);
  };

  /** The link of an alert, on the test server (PUBLIC_URL is https://vigil.test). */
  const local = (link: string) => link.replace("https://vigil.test", api.baseUrl);

  it("acknowledges through the API once, names who and when, shows it in the timeline and tells the webhook", async () => {
    const monitor = await monitorWithWebhook();
    const { incidentId } = await fail(monitor);
    now = new Date(Date.now() + MINUTE);

    const { incident } = await incidents.acknowledgeIncident({ id: incidentId });
    expect(incident).toMatchObject({ id: incidentId, acknowledgedBy: `api_key:${writeKey.id}` });
    expect(incident!.acknowledgedAt!.seconds).toBe(BigInt(Math.floor(now.getTime() / 1000)));

    // Again, later, by someone else: the first acknowledgement is kept.
    const editor = await signedInPerson(api.db.prisma, api.baseUrl, slug, "editor");
    now = new Date(now.getTime() + MINUTE);
    const again = await sessionClient(IncidentService, api.baseUrl, editor.token, { workspace: slug }).acknowledgeIncident({ id: incidentId });
    expect(again.incident).toMatchObject({ acknowledgedBy: `api_key:${writeKey.id}`, acknowledgedAt: incident!.acknowledgedAt });

    const read = await api.incidents(readKey).getIncident({ id: incidentId });
    expect(read.incident).toMatchObject({ acknowledgedBy: `api_key:${writeKey.id}` });
    expect(read.timeline.map((e) => e.type)).toEqual(["monitor.failed", "incident.acknowledged"]);
    expect((await incidents.listIncidents({ monitorId: monitor.id })).incidents[0]).toMatchObject({ acknowledgedBy: `api_key:${writeKey.id}` });

    const [acked, ...more] = await eventually(() => {
      const events = monitor.received().filter((e) => e.type === "incident.acknowledged");
      if (events.length === 0) throw new Error("not told yet");
      return events;
    });
    expect(more).toEqual([]);
    expect(acked!.data).toMatchObject({ incident: { id: incidentId }, acknowledgement: { by: `api_key:${writeKey.id}` }, ackLink: null });
    expect(acked!.data.text).toContain(`Acknowledged: `);
    new Webhook(monitor.secret).verify(acked!.request.body, acked!.request.headers as Record<string, string>);
  });

  it("refuses a viewer and a read key, an unknown incident, and a resolved one", async () => {
    const monitor = await monitorWithWebhook();
    const { incidentId, startedAt } = await fail(monitor);
    const viewer = await signedInPerson(api.db.prisma, api.baseUrl, slug, "viewer");
    expect(await codeOf(sessionClient(IncidentService, api.baseUrl, viewer.token, { workspace: slug }).acknowledgeIncident({ id: incidentId }))).toBe(
      "PermissionDenied",
    );
    expect(await codeOf(api.incidents(readKey).acknowledgeIncident({ id: incidentId }))).toBe("PermissionDenied");
    expect(await codeOf(incidents.acknowledgeIncident({ id: "0194f3b2-0000-7000-8000-000000000000" }))).toBe("NotFound");
    expect((await incidents.getIncident({ id: incidentId })).incident!.acknowledgedBy).toBe("");

    await recover(monitor.id, new Date(startedAt.getTime() + 1_000));
    const refused = await incidents.acknowledgeIncident({ id: incidentId }).catch((e: unknown) => ConnectError.from(e));
    expect(refused).toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringContaining("resolved") });
  });

  it("acknowledges by the alert's link: a GET shows the incident, a POST acknowledges once; used, forged and expired links are refused", async () => {
    const monitor = await monitorWithWebhook(0, "Shop <b>checkout</b>");
    const { incidentId, alert } = await fail(monitor);
    expect(alert.data.ackLink).toMatch(/^https:\/\/vigil\.test\/v1\/incidents\/ack\/[A-Za-z0-9_-]{43}$/);
    expect(alert.data.text).toContain(`Acknowledge: ${alert.data.ackLink}`);
    const link = local(alert.data.ackLink!);

    const shown = await fetch(link);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await shown.text();
    expect(page).toContain("Shop &lt;b&gt;checkout&lt;/b&gt;");
    expect(page).toContain('<form method="post">');
    // A GET (a mail scanner following the link) acknowledges nothing.
    expect((await incidents.getIncident({ id: incidentId })).incident!.acknowledgedBy).toBe("");

    const posted = await fetch(link, { method: "POST" });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("Incident acknowledged");
    expect((await incidents.getIncident({ id: incidentId })).incident!.acknowledgedBy).toBe("link");

    for (const method of ["GET", "POST"]) {
      const used = await fetch(link, { method });
      expect([method, used.status]).toEqual([method, 410]);
      expect(await used.text()).toContain("Link already used");
    }
    const forged = local(alert.data.ackLink!.replace(/[^/]{8}$/, "AAAAAAAA"));
    for (const method of ["GET", "POST"]) expect(await fetch(forged, { method }).then((r) => r.status)).toBe(404);
  });

  it("acknowledges once when the link is posted twice at the same time", async () => {
    const monitor = await monitorWithWebhook();
    const { incidentId, alert } = await fail(monitor);
    const link = local(alert.data.ackLink!);
    const statuses = await Promise.all([fetch(link, { method: "POST" }), fetch(link, { method: "POST" })].map((r) => r.then((answer) => answer.status)));
    expect(statuses.sort()).toEqual([200, 410]);
    const { timeline } = await incidents.getIncident({ id: incidentId });
    expect(timeline.filter((e) => e.type === "incident.acknowledged")).toHaveLength(1);
  });

  it("refuses a link after its days are over, and once its incident is resolved", async () => {
    const monitor = await monitorWithWebhook();
    const { incidentId, startedAt, alert } = await fail(monitor);
    const link = local(alert.data.ackLink!);
    now = new Date(Date.now() + 7 * 24 * 60 * MINUTE + MINUTE);
    const expired = await fetch(link, { method: "POST" });
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("Link expired");
    expect((await incidents.getIncident({ id: incidentId })).incident!.acknowledgedBy).toBe("");

    now = null;
    expect((await fetch(link)).status).toBe(200);
    await recover(monitor.id, new Date(startedAt.getTime() + 1_000));
    const resolved = await fetch(link, { method: "POST" });
    expect(resolved.status).toBe(410);
    expect(await resolved.text()).toContain("The incident was resolved");
  });

  it("gives every message asking at once a link of its own, and none for an incident no longer open", async () => {
    const open = await fail(await monitorWithWebhook());
    const closedMonitor = await monitorWithWebhook();
    const closed = await fail(closedMonitor);
    await recover(closedMonitor.id, new Date(closed.startedAt.getTime() + 1_000));
    const linksOf = (incidentId: string) => api.db.prisma.ackLink.count({ where: { incidentId } });
    const [openBefore, closedBefore] = [await linksOf(open.incidentId), await linksOf(closed.incidentId)];
    const acknowledgements = new Acknowledgements(api.db.prisma, async () => {}, "https://vigil.test/");

    const links = await Promise.all([open.incidentId, closed.incidentId, open.incidentId].map((id) => acknowledgements.newLink(id)));
    expect(links[1]).toBeNull();
    for (const link of [links[0], links[2]]) expect(link).toMatch(/^https:\/\/vigil\.test\/v1\/incidents\/ack\/[\w-]{43}$/);
    expect(links[2]).not.toBe(links[0]);
    expect(await linksOf(open.incidentId)).toBe(openBefore + 2);
    expect(await linksOf(closed.incidentId)).toBe(closedBefore);
    for (const link of [links[0]!, links[2]!]) expect((await fetch(local(link))).status).toBe(200);
  });

  it("deletes links a month after they expired, which then read as unknown", async () => {
    const monitor = await monitorWithWebhook();
    const { alert } = await fail(monitor);
    const link = local(alert.data.ackLink!);
    const acknowledgements = new Acknowledgements(api.db.prisma, async () => {}, "https://vigil.test", () => now ?? new Date());
    const count = () => api.db.prisma.ackLink.count({ where: { tokenHash: tokenHashOf(link.split("/").pop()!) } });

    now = new Date(Date.now() + (7 + 29) * 24 * 60 * MINUTE);
    await acknowledgements.pruneLinks();
    expect(await count()).toBe(1);
    expect(await (await fetch(link)).text()).toContain("Link expired");

    now = new Date(Date.now() + (7 + 31) * 24 * 60 * MINUTE);
    expect(await acknowledgements.pruneLinks()).toBeGreaterThanOrEqual(1);
    expect(await count()).toBe(0);
    expect((await fetch(link)).status).toBe(404);
  });

  describe("reminders", () => {
    const reminders = (monitor: Awaited<ReturnType<typeof monitorWithWebhook>>) => monitor.received().filter((e) => e.data.reminder !== null);
    const sweepAt = async (at: Date) => {
      now = at;
      await api.pipeline.reminders.sweep();
    };
    const deliveredReminders = async (channelId: string) =>
      (await channels.listNotificationDeliveries({ id: channelId })).deliveries.filter((d) => d.event === "incident.reminder");

    it("resends the alert every reminderMinutes while the incident is open, saying how long it lasted, and stops on acknowledgement", async () => {
      const monitor = await monitorWithWebhook(10);
      const { incidentId, startedAt } = await fail(monitor);
      const after = (minutes: number) => new Date(startedAt.getTime() + minutes * MINUTE);

      await sweepAt(after(9.9));
      expect(await deliveredReminders(monitor.channelId)).toEqual([]);

      await sweepAt(after(10));
      await eventually(() => reminders(monitor).length === 1);
      const [first] = reminders(monitor);
      expect(first!.type).toBe("monitor.failed");
      expect(first!.data).toMatchObject({ reminder: 1, durationMs: 10 * MINUTE, incident: { id: incidentId } });
      expect(first!.data.text).toMatch(/is still down in hostA-ams for 10m/);
      expect(first!.data.ackLink).toMatch(/\/v1\/incidents\/ack\//);

      // Sweeping again at the same time, or before the next period, sends nothing more.
      await sweepAt(after(19));
      await sweepAt(after(25));
      await eventually(() => reminders(monitor).length === 2);
      expect(reminders(monitor)[1]!.data).toMatchObject({ reminder: 2, durationMs: 20 * MINUTE });

      await incidents.acknowledgeIncident({ id: incidentId });
      await sweepAt(after(60));
      expect((await deliveredReminders(monitor.channelId)).length).toBe(2);
      // The timeline keeps the incident's steps; reminders are deliveries.
      expect((await incidents.getIncident({ id: incidentId })).timeline.map((e) => e.type)).toEqual(["monitor.failed", "incident.acknowledged"]);
    });

    it("stops when the incident resolves, and a channel without reminderMinutes gets none", async () => {
      const monitor = await monitorWithWebhook(5);
      const quiet = await channels.createNotification({
        notification: channel("webhook", { endpoint: `${provider.url}/hooks/quiet`, headers: [] }, { monitorIds: [monitor.id] }),
      });
      const { startedAt } = await fail(monitor);
      await sweepAt(new Date(startedAt.getTime() + 5 * MINUTE));
      await eventually(() => reminders(monitor).length === 1);
      now = null;
      await recover(monitor.id, new Date(startedAt.getTime() + 1_000));
      await sweepAt(new Date(startedAt.getTime() + 30 * MINUTE));
      expect((await deliveredReminders(monitor.channelId)).length).toBe(1);
      expect(await deliveredReminders(quiet.notification!.id)).toEqual([]);
    });

    it("is sent once when two control planes sweep at the same time", async () => {
      const replica = await api.startReplica(undefined, { ownConnections: backend === "postgres" });
      try {
        const monitor = await monitorWithWebhook(10);
        const { startedAt } = await fail(monitor);
        now = new Date(startedAt.getTime() + 10 * MINUTE);
        const sent = await Promise.all([api.pipeline.reminders.sweep(), replica.pipeline.reminders.sweep(), api.pipeline.reminders.sweep()]);
        expect(sent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
        await eventually(() => reminders(monitor).length >= 1);
        expect(await deliveredReminders(monitor.channelId)).toHaveLength(1);
        expect(reminders(monitor)).toHaveLength(1);
      } finally {
        await replica.close();
      }
    });
  });
});

