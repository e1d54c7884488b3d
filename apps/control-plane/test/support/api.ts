import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { openDatabase, type Database } from "@vigil/db";
import { IncidentService, MaintenanceService, MonitorService } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { pgliteImage } from "../../../../test/pglite-image";
import { createTestDatabase } from "../../../../test/postgres";
import { deletePrefix, testPrefix } from "../../../../test/redis";
import { startPipeline, type NotificationSetup, type Pipeline, type PipelineConfig } from "../../src/pipeline";
import { Administration } from "../../src/admin/operations";
import { API_KEY_HEADER } from "../../src/auth/api-keys";
import { createLogger, type Logger } from "@vigil/logging";
import { apiPartsOf, startApiServer, type ApiServerOptions } from "../../src/server";
import { testNotifications, testPipelineConfig } from "./control-plane";

export { STATUS_RULES } from "./control-plane";

export type Backend = "pglite" | "postgres";
export const BACKENDS: Backend[] = ["pglite", "postgres"];
export type Protocol = "connect" | "grpc" | "grpc-web";

export interface WorkspaceKeys {
  slug: string;
  write: { id: string; key: string };
  read: { id: string; key: string };
  legacy: { id: string; key: string };
}

/** A migrated database on either backend, closed (and dropped) by close(). */
export async function openTestDatabase(backend: Backend): Promise<Database & { dispose(): Promise<void> }> {
  if (backend === "pglite") {
    const db = await openDatabase({ kind: "pglite", dataDir: null, image: pgliteImage() });
    return { ...db, dispose: () => db.close() };
  }
  const { url, drop } = await createTestDatabase();
  const db = await openDatabase({ kind: "postgres", url });
  return { ...db, dispose: () => db.close().then(drop) };
}

export interface TestApiOptions {
  /** Provider settings as environment variables (TELEGRAM_BOT_TOKEN, SMTP_URL, ...). */
  providerEnv?: NodeJS.ProcessEnv;
  pipeline?: Partial<PipelineConfig>;
  /** Where the server logs; silent unless a test reads the lines. */
  logger?: Logger;
  /** Rate and connection limits other than the defaults. */
  limits?: Pick<ApiServerOptions, "rateLimits" | "connectionLimits" | "monitorsPerWorkspace" | "subscribersPerPage" | "retryDelaysMs">;
  /** RESERVED_DOMAINS: names no page may take as its custom domain, besides PUBLIC_URL's host. */
  reservedDomains?: string[];
  /** CONSOLE_DIR; default: the console built in apps/console/dist. */
  consoleDir?: string;
  /** The clock reminders and acknowledgement links go by (replicas share it); default the real one. */
  clock?: () => Date;
  /** Told of maintenance windows scheduled, started and completed (replicas share it); default none. */
  maintenanceEvents?: NotificationSetup["maintenanceEvents"];
}

/**
 * The rate limits of test servers unless a test sets its own: tests call as fast as the machine lets them (one
 * file's calls with one key passed the real 100 a second once the reads got faster), and the limits have tests of
 * their own (limits-rates.test.ts) that set them.
 */
const UNLIMITED_RATES = { apiCallsPerKeyPerSecond: 1_000_000, apiCallsPerAddressPerSecond: 1_000_000, pageViewsPerAddressPerMinute: 1_000_000 };

/** Calls to the API at `baseUrl` with `key` in its header, over `protocol`. */
export function transportTo(baseUrl: string, key: string | undefined, protocol: Protocol = "connect"): Transport {
  const withKey: Interceptor = (next) => (req) => {
    if (key !== undefined) req.header.set(API_KEY_HEADER, key);
    return next(req);
  };
  const interceptors = [withKey];
  if (protocol === "grpc") return createGrpcTransport({ baseUrl, interceptors });
  if (protocol === "grpc-web") return createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors });
  return createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors });
}

/** A real API server on a loopback port, backed by a fresh database and Redis keys of its own. */
export async function startTestApi(backend: Backend, options: TestApiOptions = {}) {
  const db = await openTestDatabase(backend);
  const logger = options.logger ?? createLogger("silent", "test");
  const redisPrefix = testPrefix();
  const notifications = testNotifications(db.prisma, options.providerEnv, undefined, options.clock);
  if (options.maintenanceEvents) notifications.setup.maintenanceEvents = options.maintenanceEvents;
  const pipeline = await startPipeline(db.prisma, testPipelineConfig(redisPrefix, options.pipeline), logger, notifications.setup);
  const serve = (on: Pipeline, limits = options.limits, prisma = db.prisma) =>
    startApiServer({
      prisma,
      ...apiPartsOf(on, redisPrefix),
      notifications: { settings: notifications.settings, secrets: notifications.box },
      logger,
      port: 0,
      host: "127.0.0.1",
      rateLimits: UNLIMITED_RATES,
      reservedDomains: options.reservedDomains,
      consoleDir: options.consoleDir,
      ...limits,
    });
  const listener = await serve(pipeline);
  const baseUrl = `http://127.0.0.1:${listener.address().port}`;
  const admin = new Administration(db.prisma, pipeline.revocations);
  let workspaces = 0;

  const transport = (key: string | undefined, protocol: Protocol) => transportTo(baseUrl, key, protocol);

  return {
    backend,
    baseUrl,
    db,
    admin,
    pipeline,
    notifications,
    redisPrefix,
    incidents: (key: string | undefined): Client<typeof IncidentService> => createClient(IncidentService, transport(key, "connect")),
    client: (key: string | undefined, protocol: Protocol = "connect"): Client<typeof MonitorService> =>
      createClient(MonitorService, transport(key, protocol)),
    notificationClient: (key: string | undefined, protocol: Protocol = "connect"): Client<typeof NotificationService> =>
      createClient(NotificationService, transport(key, protocol)),
    maintenanceClient: (key: string | undefined): Client<typeof MaintenanceService> => createClient(MaintenanceService, transport(key, "connect")),
    statusPageClient: (key: string | undefined, protocol: Protocol = "connect"): Client<typeof StatusPageService> =>
      createClient(StatusPageService, transport(key, protocol)),
    /** A new workspace with a write, a read and a legacy (scope-less) key. */
    async workspace(): Promise<WorkspaceKeys> {
      const slug = `ws-${++workspaces}`;
      await admin.createWorkspace({ name: `Workspace ${workspaces}`, slug });
      const key = async (scope: string) => {
        const { apiKey, key } = await admin.createApiKey({ workspaceSlug: slug, scope });
        return { id: apiKey.id, key };
      };
      return { slug, write: await key("write"), read: await key("read"), legacy: await key("none") };
    },
    /**
     * A second control plane of the same deployment (the same database, the same Redis keys), with its own API
     * server; with `ownConnections` (PostgreSQL only) it also has its own connections to the database, and so its
     * own view of it, as a control plane in another process has.
     */
    async startReplica(limits?: TestApiOptions["limits"], { ownConnections = false } = {}) {
      if (ownConnections && db.target.kind !== "postgres") throw new Error("only a PostgreSQL server takes connections from another control plane");
      const own = ownConnections ? await openDatabase(db.target) : null;
      const prisma = own?.prisma ?? db.prisma;
      const replica = await startPipeline(prisma, testPipelineConfig(redisPrefix, options.pipeline), logger, notifications.setup);
      const replicaListener = await serve(replica, limits, prisma);
      return {
        pipeline: replica,
        baseUrl: `http://127.0.0.1:${replicaListener.address().port}`,
        async close() {
          await replicaListener.close();
          await replica.stop();
          await own?.close();
        },
      };
    },
    /** Plain HTTP, for the /v1 endpoints and raw protocol checks. */
    fetch: (path: string, init?: RequestInit) => fetch(baseUrl + path, init),
    async close() {
      await teardownStep("closing the API listener", () => listener.close());
      await teardownStep("stopping the pipeline", () => pipeline.stop());
      await teardownStep("deleting the test's Redis keys", () => deletePrefix(redisPrefix));
      await teardownStep("closing the database", () => db.dispose());
    },
  };
}

/**
 * Runs one step of closing the test API, naming it in any error: a teardown
 * failure otherwise reaches Jest as a bare message ("Connection is closed.")
 * attached to no test.
 */
async function teardownStep(what: string, step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export type TestApi = Awaited<ReturnType<typeof startTestApi>>;
export type Replica = Awaited<ReturnType<TestApi["startReplica"]>>;

/** A JSON response body, for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const jsonOf = (res: Response): Promise<any> => res.json();
