import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { openDatabase, type Database } from "@vigil/db";
import { MonitorService, Periodicity } from "@vigil/proto";
import { connectRedis, resultsStreamKey, type RedisConnection } from "@vigil/queue";
import { createLogger } from "@vigil/logging";
import { createTestDatabase } from "../../../test/postgres";
import { deletePrefix, testPrefix } from "../../../test/redis";
import { Administration } from "../src/admin/operations";
import type { Listener } from "../src/http/listener";
import { startPipeline, type Pipeline } from "../src/pipeline";
import { apiPartsOf, startApiServer } from "../src/server";
import { testNotifications, testPipelineConfig } from "./support/control-plane";
import { eventually } from "../../../test/eventually";
import { checkResult, publishResults } from "./support/results";
import { TcpProxy } from "../../../test/tcp-proxy";

/** A client that waits longer than this fails the test: the API must answer, not hang, while the database is away. */
const CALL_OPTIONS = { timeoutMs: 10_000 };

/**
 * PostgreSQL out of reach: the control plane reaches the shared test server
 * through a proxy the test cuts, so the server itself keeps running for the
 * other tests. The API answers unavailable (503 on the plain HTTP routes),
 * results wait in the stream, and are stored once the database is back.
 */
describe("recovery from PostgreSQL failures", () => {
  const prefix = testPrefix();
  let drop: () => Promise<void>;
  let proxy: TcpProxy;
  let db: Database;
  let pipeline: Pipeline;
  let listener: Listener;
  let baseUrl: string;
  let key: string;
  let client: Client<typeof MonitorService>;
  let redis: RedisConnection;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    const direct = new URL(database.url);
    proxy = await TcpProxy.start(direct.hostname, Number(direct.port || 5432));
    const proxied = new URL(database.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    db = await openDatabase({ kind: "postgres", url: proxied.toString() });

    const logger = createLogger("silent", "test");
    const notifications = testNotifications(db.prisma);
    const config = testPipelineConfig(prefix);
    pipeline = await startPipeline(db.prisma, config, logger, notifications.setup);
    listener = await startApiServer({
      prisma: db.prisma,
      ...apiPartsOf(pipeline, prefix),
      notifications: { settings: notifications.settings, secrets: notifications.box },
      logger,
      port: 0,
      host: "127.0.0.1",
    });
    baseUrl = `http://127.0.0.1:${listener.address().port}`;
    const admin = new Administration(db.prisma);
    await admin.createWorkspace({ name: "Recovery", slug: "recovery" });
    ({ key } = await admin.createApiKey({ workspaceSlug: "recovery", scope: "write" }));
    client = createClient(
      MonitorService,
      createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [(next) => (req) => (req.header.set("x-service-key", key), next(req))] }),
    );
    redis = connectRedis(config.redis, "test");
  });
  afterAll(async () => {
    proxy?.restore();
    await listener?.close();
    await pipeline?.stop();
    await db?.close();
    await proxy?.close();
    redis?.disconnect();
    await deletePrefix(prefix);
    await drop?.();
  });

  const codeOf = (call: Promise<unknown>) =>
    call.then(
      () => "answered",
      (error: unknown) => (error instanceof ConnectError ? Code[error.code] : `not a Connect error: ${String(error)}`),
    );

  it("answers unavailable while the database is cut off, keeps results in the stream, and stores them when it is back", async () => {
    const { monitor } = await client.createHTTPMonitor({ monitor: { name: "api", url: "https://api.example.com", periodicity: Periodicity.PERIODICITY_1H } });
    const id = monitor!.id;

    proxy.cutOff();
    expect(await codeOf(client.listMonitors({ limit: 10 }, CALL_OPTIONS))).toBe("Unavailable");
    expect(await codeOf(client.createHTTPMonitor({ monitor: { name: "new", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H } }, CALL_OPTIONS))).toBe("Unavailable");
    const error = await client.getMonitor({ id }, CALL_OPTIONS).catch((e: unknown) => e as ConnectError);
    expect(error).toMatchObject({ code: Code.Unavailable, rawMessage: "the database is unreachable; try again shortly" });
    // The key itself is known from the verified-key cache; revoking one needs the database.
    const revoke = await fetch(`${baseUrl}/v1/api-key/01a20a00-0000-7000-8000-000000000000`, {
      method: "DELETE",
      headers: { "x-service-key": key },
      signal: AbortSignal.timeout(CALL_OPTIONS.timeoutMs),
    });
    expect(revoke.status).toBe(503);
    expect(await revoke.json()).toEqual({ code: "unavailable", message: "the database is unreachable; try again shortly" });

    // Agents keep reporting: the results wait in the stream, unacknowledged.
    const started = new Date().toISOString();
    await publishResults(prefix, [checkResult(id, "hostA-ams", started), checkResult(id, "hostB-fra", started, "error")]);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await redis.xlen(resultsStreamKey(prefix))).toBe(2);

    proxy.restore();
    await eventually(async () => expect(await db.prisma.checkResult.count({ where: { monitorId: id } })).toBe(2), 20_000);
    await eventually(async () => expect(await redis.xlen(resultsStreamKey(prefix))).toBe(0));
    expect((await client.listMonitors({ limit: 10 }, CALL_OPTIONS)).totalSize).toBe(1);
  }, 60_000);

  it("answers unavailable, not hanging, when the database accepts connections but never answers", async () => {
    proxy.cutOff("hang");
    expect(await codeOf(client.listMonitors({ limit: 10 }, CALL_OPTIONS))).toBe("Unavailable");
    const health = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(CALL_OPTIONS.timeoutMs) });
    expect(health.status).toBe(503);
    proxy.restore();
    await eventually(async () => expect((await client.listMonitors({ limit: 10 }, CALL_OPTIONS)).totalSize).toBe(1));
  }, 30_000);
});
