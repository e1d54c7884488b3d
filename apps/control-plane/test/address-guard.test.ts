/**
 * The SSRF guard in the API: literal addresses the deployment refuses (and
 * `localhost`) are rejected at save time with invalid_argument naming the
 * field, and a channel whose own URL reaches a refused address fails its
 * delivery for good. Runs with the guard on (ALLOW_PRIVATE_TARGETS=false),
 * unlike the other tests, whose targets are on loopback.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Periodicity, type MonitorService } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import { newSigningSecret } from "@vigil/notifications";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { startTestApi, type TestApi } from "./support/api";

const PRIVATE_HINT = "set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it";

let api: TestApi;
let monitors: Client<typeof MonitorService>;
let channels: Client<typeof NotificationService>;
let workspaceId: string;
let receiver: ProviderServer;

beforeAll(async () => {
  api = await startTestApi("pglite", { providerEnv: { ALLOW_PRIVATE_TARGETS: "false", ALLOWED_TARGET_CIDRS: "" } });
  const keys = await api.workspace();
  monitors = api.client(keys.write.key);
  channels = api.notificationClient(keys.write.key);
  workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
  receiver = await startProviderServer(() => ({ status: 200 }));
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

/** The call fails with invalid_argument and exactly this message, and writes nothing. */
async function expectInvalid(call: () => Promise<unknown>, message: string) {
  const before = { monitors: await api.db.prisma.monitor.count(), channels: await api.db.prisma.notificationChannel.count() };
  const error = await call().then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  expect({ code: error?.code, message: error?.rawMessage }).toEqual({ code: Code.InvalidArgument, message });
  expect({ monitors: await api.db.prisma.monitor.count(), channels: await api.db.prisma.notificationChannel.count() }).toEqual(before);
}

const periodicity = Periodicity.PERIODICITY_1M;

describe("monitors", () => {
  it("refuses a literal loopback URL, naming the field, the address and the rule", async () => {
    await expectInvalid(
      () => monitors.createHTTPMonitor({ monitor: { name: "m", url: "http://127.0.0.1:8080/health", periodicity } }),
      `monitor.url: refused: 127.0.0.1 is a loopback address; ${PRIVATE_HINT}`,
    );
    await expectInvalid(
      () => monitors.createHTTPMonitor({ monitor: { name: "m", url: "http://localhost:8080/", periodicity } }),
      `monitor.url: refused: localhost (127.0.0.1) is a loopback address; ${PRIVATE_HINT}`,
    );
  });

  it("refuses the metadata address and mapped IPv6 forms in a TCP uri", async () => {
    await expectInvalid(
      () => monitors.createTCPMonitor({ monitor: { name: "m", uri: "169.254.169.254:80", periodicity } }),
      "monitor.uri: refused: 169.254.169.254 is a link-local address; set ALLOWED_TARGET_CIDRS to allow it",
    );
    await expectInvalid(
      () => monitors.createTCPMonitor({ monitor: { name: "m", uri: "[::ffff:10.0.0.5]:5432", periodicity } }),
      `monitor.uri: refused: ::ffff:10.0.0.5 is a private address (RFC 1918) (IPv4-mapped form of 10.0.0.5); ${PRIVATE_HINT}`,
    );
  });

  it("reads a TCP host spelled as one number, in hex or shortened as the resolver will, as HTTP URLs are read", async () => {
    for (const uri of ["2130706433:5432", "0x7f.1:5432", "127.1:5432", "0177.0.0.1:5432"]) {
      await expectInvalid(
        () => monitors.createTCPMonitor({ monitor: { name: "m", uri, periodicity } }),
        `monitor.uri: refused: 127.0.0.1 is a loopback address; ${PRIVATE_HINT}`,
      );
    }
    await expectInvalid(
      () => monitors.createHTTPMonitor({ monitor: { name: "m", url: "http://2130706433:5432/", periodicity } }),
      `monitor.url: refused: 127.0.0.1 is a loopback address; ${PRIVATE_HINT}`,
    );
  });

  it("refuses a blocked OTLP endpoint, and a blocked address set by an update", async () => {
    await expectInvalid(
      () =>
        monitors.createHTTPMonitor({
          monitor: { name: "m", url: "https://example.com/", periodicity, openTelemetry: { endpoint: "http://10.1.2.3:4318", headers: [] } },
        }),
      `monitor.openTelemetry.endpoint: refused: 10.1.2.3 is a private address (RFC 1918); ${PRIVATE_HINT}`,
    );
    const created = (await monitors.createHTTPMonitor({ monitor: { name: "m", url: "https://example.com/", periodicity } })).monitor!;
    await expectInvalid(
      () => monitors.updateHTTPMonitor({ id: created.id, monitor: { url: "http://[::1]:8080/" } }),
      `monitor.url: refused: ::1 is a loopback address; ${PRIVATE_HINT}`,
    );
  });

  it("accepts names, which are checked when connecting, and public addresses", async () => {
    await monitors.createHTTPMonitor({ monitor: { name: "m", url: "http://intranet.example.com/", periodicity } });
    await monitors.createTCPMonitor({ monitor: { name: "m", uri: "8.8.8.8:53", periodicity } });
    await monitors.createDNSMonitor({ monitor: { name: "m", uri: "localhost", periodicity } });
  });
});

describe("notification channels", () => {
  it("refuses blocked webhook endpoints, provider webhook URLs and ntfy servers", async () => {
    await expectInvalid(
      () => channels.createNotification({ notification: { name: "n", provider: { case: "webhook", value: { endpoint: "http://10.0.0.5/hook" } } } }),
      `notification.webhook.endpoint: refused: 10.0.0.5 is a private address (RFC 1918); ${PRIVATE_HINT}`,
    );
    await expectInvalid(
      () => channels.createNotification({ notification: { name: "n", provider: { case: "slack", value: { webhookUrl: "http://127.0.0.1/services/x" } } } }),
      `notification.slack.webhookUrl: refused: 127.0.0.1 is a loopback address; ${PRIVATE_HINT}`,
    );
    await expectInvalid(
      () => channels.createNotification({ notification: { name: "n", provider: { case: "ntfy", value: { topic: "t", serverUrl: "http://[fd00::1]" } } } }),
      `notification.ntfy.serverUrl: refused: fd00::1 is a unique-local address (IPv6); ${PRIVATE_HINT}`,
    );
  });

  it("fails the delivery of a channel stored before the guard refused its address, without retrying or sending", async () => {
    const stored = await api.notifications.repository.create(workspaceId, {
      name: "legacy",
      provider: { type: "webhook", config: { endpoint: `${receiver.url}/hook`, headers: [] } },
      signingSecret: newSigningSecret(),
    });
    const answer = await channels.sendTestNotification({ id: stored.id });
    expect(answer).toMatchObject({
      success: false,
      errorMessage: `${new URL(receiver.url).host}: refused to connect to 127.0.0.1: loopback address; ${PRIVATE_HINT}`,
    });
    expect(receiver.received).toHaveLength(0);
  });
});
