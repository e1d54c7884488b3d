import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../../../test/postgres";
import { createClient } from "@connectrpc/connect";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { startProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { testPrefix } from "../../../test/redis";
import { jsonOf, transportTo } from "./support/api";
import { channel } from "./support/channels";
import { checkResult, publishResults } from "./support/results";
import { eventually } from "../../../test/eventually";
import { runNode, startService, type ServiceProcess } from "./support/processes";
import { RedisProcess } from "../../../test/redis-process";

/** The built service as a user runs it: start, first-start key, admin command while it runs, restart. */
describe("the service on embedded PGlite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-data-"));
  const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
  const admin = (...args: string[]) => runNode("admin/main.js", args, env);
  let service: ServiceProcess;
  let firstKey: string;

  const whoami = (key: string) =>
    fetch(`http://127.0.0.1:${service.port}/v1/whoami`, { headers: { "x-service-key": key } }).then(async (res) => ({
      status: res.status,
      body: await jsonOf(res),
    }));

  beforeAll(async () => {
    service = await startService(env);
  });
  afterAll(async () => {
    if (service.child.exitCode === null) await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates a default workspace and a write key on first start and prints the key once, outside the logs", async () => {
    const match = /First start: .*\n.*\n\n\s+(vgl_\S+)/.exec(service.stderr());
    expect(match).not.toBeNull();
    firstKey = match![1]!;
    expect(service.stdout()).not.toContain(firstKey);
    const me = await whoami(firstKey);
    expect(me).toEqual({ status: 200, body: { name: "Default", slug: "default", plan: "free", actor: expect.objectContaining({ scopes: ["write"] }) } });
    for (const line of service.stdout().trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("prints a link on first start that makes its first opener the owner of the default workspace, once", async () => {
    const link = /Make yourself its owner with this link \(it works once, for 24 hours\):\n\n\s+(\S+)/.exec(service.stderr())?.[1];
    expect(link).toMatch(/^http:\/\/localhost:\d+\/app\/invite\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(link!).searchParams.get("token")!;
    expect(service.stdout()).not.toContain(token);
    const accept = (email: string) =>
      fetch(`http://127.0.0.1:${service.port}/account.v1.MemberService/AcceptInvitation`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, email, name: "First Owner", password: "first-owner-passphrase" }),
      });
    const accepted = await accept("owner@example.com");
    expect(accepted.status).toBe(200);
    const session = /^vigil_session=([^;]+)/.exec(accepted.headers.get("set-cookie") ?? "")![1]!;
    const me = await fetch(`http://127.0.0.1:${service.port}/v1/whoami`, { headers: { cookie: `vigil_session=${session}` } }).then(jsonOf);
    expect(me).toMatchObject({ slug: "default", actor: { type: "user", email: "owner@example.com", role: "owner", scopes: ["write"] } });
    expect((await accept("second@example.com")).status).toBe(400);
  });

  it("administers workspaces and keys through the running service", async () => {
    expect(admin("workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "team")).toMatchObject({ code: 0 });
    const created = admin("key", "create", "--workspace", "acme", "--scope", "read", "--name", "dashboards");
    expect(created.code).toBe(0);
    const key = /(vgl_\S+)/.exec(created.stdout)![1]!;
    const me = await whoami(key);
    expect(me.body).toMatchObject({ slug: "acme", plan: "team", actor: { scopes: ["read"] } });

    const legacy = JSON.parse(admin("--json", "key", "create", "--workspace", "acme", "--scope", "none").stdout);
    expect((await whoami(legacy.key)).body.actor).toEqual({ type: "apiKey", keyId: legacy.apiKey.id, scopes: ["write"] });

    const listed = JSON.parse(admin("--json", "key", "list", "--workspace", "acme").stdout) as { id: string; scopes: string[] }[];
    expect(listed.map((k) => k.scopes)).toEqual([["read"], []]);
    expect(JSON.stringify(listed)).not.toContain(key);

    expect(admin("key", "revoke", me.body.actor.keyId)).toMatchObject({ code: 0 });
    expect((await whoami(key)).status).toBe(401);
  });

  it("explains bad admin input and exits non-zero", () => {
    const duplicate = admin("workspace", "create", "--name", "Again", "--slug", "acme");
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("slug: acme is already taken");
    const badScope = admin("key", "create", "--workspace", "acme", "--scope", "admin");
    expect(badScope.stderr).toContain("scope: must be read, write or none");
    expect(admin("key", "list", "--workspace", "nope").stderr).toContain("no workspace with slug nope");
  });

  it("refuses a second service on the same data folder", async () => {
    await expect(startService({ ...env })).rejects.toThrow(/in use by another Vigil process/);
  });

  it("keeps its data across a restart, and the admin command works while it is stopped", async () => {
    expect(await service.stop()).toBe(0);
    const offline = admin("--json", "workspace", "list");
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout).map((w: { slug: string }) => w.slug)).toEqual(["default", "acme"]);

    service = await startService(env);
    expect(service.stderr()).not.toContain("First start");
    expect((await whoami(firstKey)).status).toBe(200);
  });
});

describe("restarting on embedded PGlite after the service was killed", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-data-"));
  const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
  const started: ServiceProcess[] = [];
  const start = async () => {
    const service = await startService(env);
    started.push(service);
    return service;
  };
  const logLines = (service: ServiceProcess) =>
    service
      .stdout()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; level: number; pid?: number });
  afterAll(async () => {
    for (const service of started) if (service.child.exitCode === null && service.child.signalCode === null) await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts again at once after kill -9, says once that it takes over, and still refuses a second service beside a live one", async () => {
    const first = await start();
    const key = /First start: .*\n.*\n\n\s+(vgl_\S+)/.exec(first.stderr())![1]!;
    const killed = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await killed;

    // As a supervisor with no restart delay would: the folder's holder is dead, so the start goes on.
    const second = await start();
    const takeovers = logLines(second).filter((entry) => /taking it over/.test(entry.msg));
    expect(takeovers).toEqual([expect.objectContaining({ level: 40, dataDir, previousPid: first.child.pid })]);
    const me = await fetch(`http://127.0.0.1:${second.port}/v1/whoami`, { headers: { "x-service-key": key } });
    expect(me.status).toBe(200);

    await expect(startService(env)).rejects.toThrow(/the data folder .* is in use by another Vigil process \(pid \d+\)/);

    // A clean stop releases the folder: the next start takes nothing over.
    expect(await second.stop()).toBe(0);
    const third = await start();
    expect(logLines(third).filter((entry) => /taking it over/.test(entry.msg))).toEqual([]);
  }, 90_000);
});

describe("the migrate command", () => {
  it("applies pending migrations once, on PGlite and on PostgreSQL", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vigil-data-"));
    const { url, drop } = await createTestDatabase();
    try {
      const fresh = runNode("migrate-cli.js", [], { DATA_DIR: dataDir, DATABASE_URL: "" });
      expect(fresh).toMatchObject({ code: 0, stdout: expect.stringMatching(/embedded PGlite in .*: applied \d+_init/) });
      expect(runNode("migrate-cli.js", [], { DATA_DIR: dataDir, DATABASE_URL: "" }).stdout).toContain("up to date");
      // The test database is a copy of a migrated template.
      expect(runNode("migrate-cli.js", [], { DATABASE_URL: url }).stdout).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/vigil_test_\w+: up to date/);
    } finally {
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("migrates over DATABASE_DIRECT_URL where it is set, as DATABASE_URL may be a pool in transaction mode", async () => {
    const { url, drop } = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), "vigil-data-"));
    try {
      // Nothing listens on port 1: a migration that went over DATABASE_URL would fail to connect.
      const pooled = "postgresql://vigil@127.0.0.1:1/vigil";
      expect(runNode("migrate-cli.js", [], { DATABASE_URL: pooled, DATABASE_DIRECT_URL: url })).toMatchObject({ code: 0, stdout: expect.stringContaining("up to date") });
      expect(runNode("migrate-cli.js", [], { DATABASE_URL: pooled, DATABASE_DIRECT_URL: "" })).toMatchObject({ code: 1, stderr: expect.stringContaining("Can't reach database server at `127.0.0.1:1`") });
      expect(runNode("migrate-cli.js", [], { DATA_DIR: dataDir, DATABASE_URL: "", DATABASE_DIRECT_URL: url })).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("DATABASE_DIRECT_URL: is only used with DATABASE_URL"),
      });
    } finally {
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the service on PostgreSQL", () => {
  it("applies migrations at start, creates no key by itself, and is administered directly", async () => {
    const { url, drop } = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), "vigil-data-"));
    const env = { DATABASE_URL: url, DATA_DIR: dataDir };
    const service = await startService(env);
    try {
      expect(service.stderr()).not.toContain("First start");
      const created = runNode("admin/main.js", ["--json", "workspace", "create", "--name", "Ops", "--slug", "ops"], env);
      expect(created.code).toBe(0);
      const { key } = JSON.parse(runNode("admin/main.js", ["--json", "key", "create", "--workspace", "ops", "--scope", "write"], env).stdout);
      const res = await fetch(`http://127.0.0.1:${service.port}/v1/whoami`, { headers: { "x-service-key": key } });
      expect((await jsonOf(res)).slug).toBe("ops");
      const health = await fetch(`http://127.0.0.1:${service.port}/healthz`);
      expect(await jsonOf(health)).toEqual({ status: "ok" });
    } finally {
      await service.stop();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("stopping while Redis is unreachable", () => {
  /** Longer than any wait of the shutdown's own: a service still running after it hangs on Redis. */
  const STOP_BOUND_MS = 20_000;
  const dataDirs: string[] = [];
  const redis: RedisProcess[] = [];
  const services: ServiceProcess[] = [];
  afterAll(async () => {
    for (const service of services) if (service.child.exitCode === null) service.child.kill("SIGKILL");
    await Promise.all(redis.map((server) => server.dispose()));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The service on embedded PGlite (in `dataDir`, a new folder unless given) and the given Redis. */
  async function serviceOn(redisUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "vigil-data-"));
    dataDirs.push(dataDir);
    const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: redisUrl, ...env });
    services.push(service);
    return service;
  }

  /** SIGTERM, then the exit code, or "still running" if it has not exited within STOP_BOUND_MS. */
  function stopWithin(service: ServiceProcess): Promise<number | null | "still running"> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<"still running">((resolve) => (timer = setTimeout(() => resolve("still running"), STOP_BOUND_MS)));
    return Promise.race([service.stop(), bound]).finally(() => clearTimeout(timer));
  }

  it("exits 0 on SIGTERM after its Redis went away while it was reading results", async () => {
    const server = await RedisProcess.start();
    redis.push(server);
    const service = await serviceOn(server.url);
    // Reconciled: its results consumer is reading the stream, and the schedules and deliveries are in use.
    await eventually(() => service.stdout().includes("schedules reconciled with the database"));
    await server.stop();
    await eventually(() => service.stdout().includes('"msg":"redis is unavailable"'));
    expect(await stopWithin(service)).toBe(0);
  }, 60_000);

  it("exits 0 on SIGTERM when its Redis never answered", async () => {
    const server = await RedisProcess.start();
    redis.push(server);
    await server.stop();
    const service = await serviceOn(server.url);
    expect(await stopWithin(service)).toBe(0);
  }, 60_000);

  it("finishes the notification it is sending and records it, then exits 0 without waiting for Redis", async () => {
    const server = await RedisProcess.start();
    redis.push(server);
    // The channel answers after 1.5 s: the delivery is in progress when Redis goes away and SIGTERM comes.
    const provider = await startProviderServer(() => ({ status: 200, afterMs: 1_500 }));
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "vigil-data-")), REDIS_PREFIX: testPrefix() };
    try {
      let service = await serviceOn(server.url, env);
      const key = /First start: .*\n.*\n\n\s+(vgl_\S+)/.exec(service.stderr())![1]!;
      const api = (port: number) => transportTo(`http://127.0.0.1:${port}`, key);
      const { monitor } = await createClient(MonitorService, api(service.port)).createHTTPMonitor({
        monitor: { name: "away", url: "https://away.example.com/", periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS] },
      });
      const { notification } = await createClient(NotificationService, api(service.port)).createNotification({
        notification: channel("webhook", { endpoint: `${provider.url}/hook`, headers: [] }, { monitorIds: [monitor!.id] }),
      });
      await publishResults(env.REDIS_PREFIX, [checkResult(monitor!.id, "hostA-ams", new Date(Date.now() - 3_000).toISOString(), "error")], server.url);
      await provider.waitFor(1);

      await server.stop();
      expect(await stopWithin(service)).toBe(0);
      expect(service.stdout()).toContain("redis is unreachable and no delivery is in progress: stopping without waiting for it");

      // Started again, with Redis back: the delivery was recorded before the exit, and is not sent again.
      await server.resume();
      service = await serviceOn(server.url, env);
      const { deliveries } = await createClient(NotificationService, api(service.port)).listNotificationDeliveries({ id: notification!.id });
      expect(deliveries).toEqual([expect.objectContaining({ event: "monitor.failed", outcome: "delivered", attempts: 1, statusCode: 200 })]);
      expect(provider.received).toHaveLength(1);
      expect(await stopWithin(service)).toBe(0);
    } finally {
      await provider.close();
    }
  }, 90_000);
});


describe("a signal while the service starts", () => {
  it("finishes starting, then stops cleanly, leaving its data folder free for the next start", async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "vigil-data-")), DATABASE_URL: "" };
    try {
      // Signalled once its database is ready, before it listens: the handlers are on from the first step.
      const starting = await startService(env, "database ready");
      expect(await starting.stop()).toBe(0);
      expect(starting.stdout()).toContain('"msg":"shutting down"');
      expect(starting.stderr()).not.toContain("last holder ended without stopping");

      const next = await startService(env);
      expect(next.stderr()).not.toContain("last holder ended without stopping");
      expect(next.stdout()).not.toContain("last holder ended without stopping");
      expect(await next.stop()).toBe(0);
    } finally {
      rmSync(env.DATA_DIR, { recursive: true, force: true });
    }
  }, 60_000);
});
