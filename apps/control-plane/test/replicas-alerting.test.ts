import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { openDatabase } from "@vigil/db";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { createTestDatabase } from "../../../test/postgres";
import { deletePrefix, testPrefix } from "../../../test/redis";
import { Administration } from "../src/admin/operations";
import { channel } from "./support/channels";
import { eventually } from "../../../test/eventually";
import { startService, type ServiceProcess } from "./support/processes";
import { checkResult, publishResults } from "./support/results";

/**
 * Two built control planes (`node dist/main.js`) sharing PostgreSQL, Redis and ENCRYPTION_KEY, as
 * behind a load balancer: results redelivered and spread over both yield one message per transition,
 * and one warning per certificate that expires soon.
 */
describe("alerting with two control-plane processes", () => {
  const prefix = testPrefix();
  const dataDirs = [1, 2].map(() => mkdtempSync(join(tmpdir(), "vigil-replica-")));
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let services: ServiceProcess[] = [];
  let provider: ProviderServer;

  beforeAll(async () => {
    provider = await startProviderServer();
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      REDIS_PREFIX: prefix,
      NOTIFICATION_RETRY_DELAYS: "0.3,0.3",
    };
    services = [await startService({ ...env, DATA_DIR: dataDirs[0] }), await startService({ ...env, DATA_DIR: dataDirs[1] })];
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await provider.close();
    await deletePrefix(prefix);
    await database.drop();
    dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it("sends exactly one message per transition and per expiring certificate", async () => {
    const db = await openDatabase({ kind: "postgres", url: database.url });
    const admin = new Administration(db.prisma);
    await admin.createWorkspace({ name: "Replicas", slug: "replicas" });
    const { key } = await admin.createApiKey({ workspaceSlug: "replicas", scope: "write" });
    await db.close();
    const transport = (service: ServiceProcess) =>
      createConnectTransport({
        baseUrl: `http://127.0.0.1:${service.port}`,
        httpVersion: "1.1",
        interceptors: [(next) => (req) => (req.header.set("x-service-key", key), next(req))],
      });
    const monitors = createClient(MonitorService, transport(services[0]!));
    const ids = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const { monitor } = await monitors.createHTTPMonitor({
          monitor: { name: `replica-${n}`, url: `https://r${n}.example.com/`, periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
        });
        return monitor!.id;
      }),
    );
    // Made through the other replica: channels and their secrets are the deployment's, not one process's.
    await createClient(NotificationService, transport(services[1]!)).createNotification({
      notification: channel("webhook", { endpoint: `${provider.url}/replicas`, headers: [] }, { monitorIds: ids }),
    });

    const now = Date.now();
    const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();
    // Every successful check sees a certificate with 10 days left: each monitor's is warned about once.
    const tenDays = new Date(now + 10 * 86_400_000 + 3_600_000).toISOString();
    const certificate = { notAfter: tenDays, chainNotAfter: tenDays, issuer: "CN=Test CA", subjectAltNames: ["DNS:example.com"] };
    const results = ids.flatMap((id) => [
      checkResult(id, "hostA-ams", at(40), "success", { certificate }),
      checkResult(id, "hostB-fra", at(40), "success", { certificate }),
      checkResult(id, "hostA-ams", at(30), "error"),
      checkResult(id, "hostB-fra", at(30), "error"),
      checkResult(id, "hostA-ams", at(20), "success", { certificate }),
      checkResult(id, "hostB-fra", at(10), "success", { certificate }),
    ]);
    // Every result twice, in separate appends, so both processes take a share of each.
    for (let i = 0; i < results.length; i += 3) await publishResults(prefix, results.slice(i, i + 3));
    await publishResults(prefix, results);

    await eventually(() => expect(provider.received).toHaveLength(12), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const seen = provider.received.map((r) => {
      const body = r.json as { type: string; data: { monitor: { id: string } } };
      return `${body.data.monitor.id}:${body.type}`;
    });
    expect(seen.sort()).toEqual(ids.flatMap((id) => [`${id}:monitor.failed`, `${id}:monitor.recovered`, `${id}:monitor.certificate_expiring`]).sort());
  });
});
