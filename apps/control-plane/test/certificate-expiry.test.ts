import type { Client } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { CertificateInfo } from "@vigil/domain";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";
import { checkResult, publishResults } from "./support/results";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Envelope {
  type: string;
  id: string;
  data: {
    incident: unknown;
    certificate: (CertificateInfo & { daysLeft: number; region: string; renews: string | null }) | null;
    text: string;
  };
}

/** A certificate whose chain expires at `chainNotAfter`, its leaf a month later (an intermediate expiring first). */
const certificate = (chainNotAfter: Date): CertificateInfo => ({
  notAfter: new Date(chainNotAfter.getTime() + 30 * DAY).toISOString(),
  issuer: "CN=Vigil Test Intermediate, O=Vigil Tests",
  subjectAltNames: ["DNS:api.example.com"],
  chainNotAfter: chainNotAfter.toISOString(),
});

describe.each(BACKENDS)("certificate expiry warnings on %s", (backend) => {
  let api: TestApi;
  let provider: ProviderServer;
  let client: Client<typeof MonitorService>;
  let channels: Client<typeof NotificationService>;
  let monitors = 0;

  beforeAll(async () => {
    provider = await startProviderServer();
    api = await startTestApi(backend);
    const keys = await api.workspace();
    client = api.client(keys.write.key);
    channels = api.notificationClient(keys.write.key);
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });

  /** An HTTPS monitor checked in hostA-ams with a webhook channel of its own. */
  async function monitorWithWebhook(certificateExpiryDays?: bigint) {
    const n = ++monitors;
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: `api ${n}`, url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS], certificateExpiryDays },
    });
    const path = `/certs/${n}`;
    await channels.createNotification({ notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds: [monitor!.id] }) });
    const sent = (type: string) => provider.received.filter((r) => r.url === path).map((r) => r.json as Envelope).filter((e) => e.type === type);
    return { id: monitor!.id, warnings: () => sent("monitor.certificate_expiring"), renewals: () => sent("monitor.certificate_renewed") };
  }

  /** Publishes a successful check started `at` that saw `cert`, and waits until it is the region's newest. */
  async function checked(monitorId: string, at: Date, cert: CertificateInfo | null, status: "success" | "error" = "success") {
    const result = checkResult(monitorId, "hostA-ams", at.toISOString(), status, { certificate: cert });
    await publishResults(api.redisPrefix, [result]);
    await eventually(async () => {
      const stored = await api.db.prisma.checkResult.count({ where: { id: result.id } });
      expect(stored).toBe(1);
    });
    return result;
  }

  const regionCertificate = async (id: string) => (await client.getMonitorStatus({ id })).regions.find((r) => r.region === Region.HOSTA_AMS)?.certificate;

  it("warns once below certificateExpiryDays, again at 7 and at 1 days left, and starts afresh after a renewal", async () => {
    const monitor = await monitorWithWebhook();
    // The checks' own start times are the clock: they run from ten days ago to now.
    const t0 = new Date(Date.now() - 10 * DAY);
    const expiring = certificate(new Date(t0.getTime() + 10 * DAY + HOUR));

    const first = await checked(monitor.id, t0, expiring);
    const [warning] = await eventually(() => {
      expect(monitor.warnings()).toHaveLength(1);
      return monitor.warnings();
    });
    expect(warning!.data.incident).toBeNull();
    expect(warning!.data.certificate).toEqual({ ...expiring, daysLeft: 10, region: "hostA-ams", renews: null });
    expect(warning!.data.text).toContain("expires in 10 days");

    // The same certificate an hour later, and the first result delivered again: nothing more.
    await checked(monitor.id, new Date(t0.getTime() + HOUR), expiring);
    await publishResults(api.redisPrefix, [first]);
    await checked(monitor.id, new Date(t0.getTime() + 2 * HOUR), expiring);

    await checked(monitor.id, new Date(t0.getTime() + 3 * DAY + HOUR), expiring);
    await eventually(() => expect(monitor.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([10, 7]));
    await checked(monitor.id, new Date(t0.getTime() + 9 * DAY + HOUR), expiring);
    await eventually(() => expect(monitor.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([10, 7, 1]));
    await checked(monitor.id, new Date(t0.getTime() + 9 * DAY + 2 * HOUR), expiring);

    // Renewed: the renewal is sent once, the warning ends, and the next certificate close to expiry is warned about again.
    const renewed = certificate(new Date(t0.getTime() + 100 * DAY));
    const renewedAt = new Date(t0.getTime() + 9 * DAY + 3 * HOUR);
    const renewal = await checked(monitor.id, renewedAt, renewed);
    const [told] = await eventually(() => {
      expect(monitor.renewals()).toHaveLength(1);
      return monitor.renewals();
    });
    expect(told!.data.incident).toBeNull();
    expect(told!.data.certificate).toEqual({ ...renewed, daysLeft: 90, region: "hostA-ams", renews: expiring.chainNotAfter });
    expect(told!.data.text).toContain("has a renewed TLS certificate, expiring on");
    expect(told!.data.text).toContain(`Replaces: the certificate expiring ${expiring.chainNotAfter.slice(0, 19).replace("T", " ")} UTC`);
    expect(await api.db.prisma.certificateWarning.count({ where: { monitorId: monitor.id } })).toBe(0);
    await publishResults(api.redisPrefix, [renewal]);
    await checked(monitor.id, new Date(renewedAt.getTime() + HOUR), renewed);
    const shown = await regionCertificate(monitor.id);
    expect(shown).toMatchObject({ issuer: renewed.issuer, subjectAltNames: renewed.subjectAltNames });
    expect(timestampDate(shown!.chainNotAfter!).toISOString()).toBe(renewed.chainNotAfter);
    expect(timestampDate(shown!.notAfter!).toISOString()).toBe(renewed.notAfter);
    expect(shown!.daysLeft).toBe(BigInt(Math.floor((Date.parse(renewed.chainNotAfter) - Date.now()) / DAY)));

    const replaced = certificate(new Date(t0.getTime() + 19 * DAY + 5 * HOUR));
    await checked(monitor.id, new Date(t0.getTime() + 9 * DAY + 4 * HOUR), replaced);
    await eventually(() => expect(monitor.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([10, 7, 1, 10]));
    expect(monitor.warnings()).toHaveLength(4);
    expect(monitor.renewals()).toHaveLength(1);
  });

  it("ends the warning of a certificate renewed by one that also expires soon, and warns about the new one", async () => {
    const monitor = await monitorWithWebhook();
    const at = new Date(Date.now() - DAY);
    const old = certificate(new Date(at.getTime() + 5 * DAY + HOUR));
    const next = certificate(new Date(at.getTime() + 12 * DAY + HOUR));
    await checked(monitor.id, at, old);
    await eventually(() => expect(monitor.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([5]));

    await checked(monitor.id, new Date(at.getTime() + HOUR), next);
    await eventually(() => expect(monitor.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([5, 12]));
    expect(monitor.renewals().map((r) => [r.data.certificate!.chainNotAfter, r.data.certificate!.renews])).toEqual([[next.chainNotAfter, old.chainNotAfter]]);
  });

  it("sends nothing with certificateExpiryDays 0, and warns earlier with a larger one", async () => {
    const off = await monitorWithWebhook(0n);
    const early = await monitorWithWebhook(30n);
    const at = new Date(Date.now() - HOUR);
    const cert = certificate(new Date(at.getTime() + 20 * DAY + HOUR));
    await checked(off.id, at, cert);
    await checked(early.id, at, cert);

    await eventually(() => expect(early.warnings().map((w) => w.data.certificate!.daysLeft)).toEqual([20]));
    expect(off.warnings()).toEqual([]);
    expect(await api.db.prisma.alertEvent.count({ where: { monitorId: off.id } })).toBe(0);
    expect(await regionCertificate(off.id)).toMatchObject({ issuer: cert.issuer });
  });

  it("keeps the region's certificate through a failed check without one, and clears it once a check succeeds without one", async () => {
    const monitor = await monitorWithWebhook(0n);
    const at = new Date(Date.now() - HOUR);
    await checked(monitor.id, at, certificate(new Date(at.getTime() + 60 * DAY)));
    await checked(monitor.id, new Date(at.getTime() + 60_000), null, "error");
    expect(await regionCertificate(monitor.id)).toBeDefined();
    await checked(monitor.id, new Date(at.getTime() + 120_000), null);
    expect(await regionCertificate(monitor.id)).toBeUndefined();
  });
});
