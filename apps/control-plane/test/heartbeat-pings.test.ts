/**
 * The ping URLs of heartbeat monitors: real HTTP requests to a real server, read back through ListHeartbeatPings,
 * on both database backends. The server's clock is the test's, so run durations are exact.
 */
import { Code } from "@connectrpc/connect";
import { LIMITS } from "@vigil/domain";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { MonitorStatus, Periodicity, TimeRange } from "@vigil/proto";
import type { Prisma } from "@vigil/db";
import { isWriteConflict } from "../src/errors";
import { eventually } from "../../../test/eventually";
import { codeOf } from "./support/codes";
import { parseExposition, sampleValue } from "./support/prometheus";
import { BACKENDS, jsonOf, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

describe.each(BACKENDS)("heartbeat pings (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let now = new Date("2026-11-29T06:00:00Z");
  const write = () => api.client(ws.write.key);

  beforeAll(async () => {
    api = await startTestApi(backend, { clock: () => now });
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  /** A new heartbeat monitor: its id and the path of its ping URL. */
  async function heartbeat() {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "job", active: true } });
    return { id: monitor!.id, path: new URL(monitor!.pingUrl).pathname };
  }
  const pingsOf = async (id: string) => (await api.client(ws.read.key).listHeartbeatPings({ id })).pings;

  test("GET and POST to the ping URL answer OK and are kept, newest first, with method, address and agent", async () => {
    const { id, path } = await heartbeat();
    const got = await api.fetch(path, { headers: { "user-agent": "curl/8.0" } });
    expect([got.status, await got.text(), got.headers.get("content-type")]).toEqual([200, "OK\n", "text/plain; charset=utf-8"]);
    now = new Date(now.getTime() + 1000);
    const posted = await api.fetch(path, { method: "POST", body: "backup done: 3 files" });
    expect(posted.status).toBe(200);
    expect(await pingsOf(id)).toMatchObject([
      { kind: "success", method: "POST", body: "backup done: 3 files", address: "127.0.0.1" },
      { kind: "success", method: "GET", body: "", address: "127.0.0.1", userAgent: "curl/8.0" },
    ]);
  });

  test("/start, then a success or failure, measures the run; /fail and a non-zero exit code fail, 0 succeeds", async () => {
    const { id, path } = await heartbeat();
    const ping = async (suffix: string) => {
      const res = await api.fetch(path + suffix, { method: "POST" });
      expect(res.status).toBe(200);
      now = new Date(now.getTime() + 5_000);
    };
    await ping("/start");
    await ping("/0");
    await ping("/fail");
    await ping("/start");
    await ping("/3");
    const pings = await pingsOf(id);
    expect(pings.map((p) => [p.kind, p.exitCode, p.durationMs])).toEqual([
      ["fail", 3, 5_000n],
      ["start", undefined, undefined],
      ["fail", undefined, undefined],
      ["success", 0, 5_000n],
      ["start", undefined, undefined],
    ]);
  });

  test("GetMonitorSummary of a heartbeat counts its successes and failures and gives its runs' durations", async () => {
    const { id, path } = await heartbeat();
    // The summary's range ends at the server's real now: the pings are made a little before it.
    now = new Date(Date.now() - 600_000);
    for (const [suffix, seconds] of [["/start", 10], ["", 20], ["/start", 30], ["/fail", 5], ["/start", 60], ["/0", 1]] as const) {
      expect((await api.fetch(path + suffix, { method: "POST" })).status).toBe(200);
      now = new Date(now.getTime() + seconds * 1_000);
    }
    const summary = await api.client(ws.read.key).getMonitorSummary({ id, timeRange: TimeRange.TIME_RANGE_1D });
    expect(summary).toMatchObject({ totalSuccessful: 2n, totalFailed: 1n, totalDegraded: 0n, p50: 30_000n, p99: 60_000n });
    expect(timestampDate(summary.lastPingAt!).getTime()).toBe(now.getTime() - 1_000);
    const empty = await api.client(ws.read.key).getMonitorSummary({ id: (await heartbeat()).id, timeRange: TimeRange.TIME_RANGE_1D });
    expect(empty).toMatchObject({ totalSuccessful: 0n, totalFailed: 0n, p50: 0n, p99: 0n });
    expect(empty.lastPingAt).toBeUndefined();
  });

  test("a body keeps its first 10 KB", async () => {
    const { id, path } = await heartbeat();
    const res = await api.fetch(path, { method: "POST", body: "x".repeat(LIMITS.pingBodyBytes * 3) });
    expect(res.status).toBe(200);
    const [ping] = await pingsOf(id);
    expect(ping!.body).toBe("x".repeat(LIMITS.pingBodyBytes));
  });

  test("a token no monitor has, or a path that is no ping, is not found, and nothing is stored", async () => {
    const { id, path } = await heartbeat();
    const unknown = await api.fetch(`/v1/ping/${"A".repeat(32)}`);
    expect([unknown.status, await jsonOf(unknown)]).toEqual([404, { code: "not_found", message: "no heartbeat monitor has this ping URL" }]);
    for (const bad of [`${path}/256`, `${path}/log`, `/v1/ping/short`]) expect((await api.fetch(bad)).status).toBe(404);
    expect(await pingsOf(id)).toEqual([]);
  });

  test(`more than ${LIMITS.pingsPerSecondPerToken} pings a second to one ping URL are answered 429`, async () => {
    const { path } = await heartbeat();
    const other = await heartbeat();
    const statuses = await Promise.all(Array.from({ length: LIMITS.pingsPerSecondPerToken + 5 }, () => api.fetch(path).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMITS.pingsPerSecondPerToken);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    // Counted per token: another monitor's URL is not held back.
    expect((await api.fetch(other.path)).status).toBe(200);
  });

  test("the newest 100 pings of a monitor are kept, and deleting the monitor deletes them", async () => {
    const { id, path } = await heartbeat();
    const token = path.split("/").pop()!;
    for (let i = 0; i < 105; i++) {
      now = new Date(now.getTime() + 1);
      await api.pipeline.pings.record(token, { kind: "success", exitCode: null, body: String(i), method: "GET", address: "test", userAgent: "" });
    }
    const pings = (await api.client(ws.read.key).listHeartbeatPings({ id, limit: 100 })).pings;
    expect(pings.map((p) => p.body)).toEqual(Array.from({ length: 100 }, (_, i) => String(104 - i)));
    await write().deleteMonitor({ id });
    expect(await api.db.prisma.heartbeatPing.count({ where: { monitorId: id } })).toBe(0);
  });

  test("under a burst (10 pings at once, 40 times) a monitor never holds more than 100 pings, and keeps the newest", async () => {
    const { id, path } = await heartbeat();
    const token = path.split("/").pop()!;
    let sent = 0;
    for (let wave = 0; wave < 40; wave++) {
      now = new Date(now.getTime() + 1_000);
      // Concurrent pings of one monitor queue on its row lock: each is numbered and pruned in turn.
      await Promise.all(
        Array.from({ length: 10 }, () => {
          const n = sent++;
          return api.pipeline.pings.record(token, { kind: "success", exitCode: null, body: String(n), method: "GET", address: "test", userAgent: "" });
        }),
      );
      expect(await api.db.prisma.heartbeatPing.count({ where: { monitorId: id } })).toBeLessThanOrEqual(100);
    }
    const kept = await api.db.prisma.heartbeatPing.findMany({ where: { monitorId: id }, select: { seq: true }, orderBy: { seq: "asc" } });
    expect(kept.map((p) => Number(p.seq))).toEqual(Array.from({ length: 100 }, (_, i) => 301 + i));
    const { pings } = await api.client(ws.read.key).listHeartbeatPings({ id, limit: 100 });
    expect(pings).toHaveLength(100);
  });

  test("a burst across many ping URLs is stored in batches: every ping answered, numbered and kept, in fewer statements", async () => {
    const monitors = await Promise.all(Array.from({ length: 40 }, () => heartbeat()));
    const batches = async () => {
      const samples = parseExposition(await (await api.fetch("/metrics")).text());
      return { statements: sampleValue(samples, "vigil_heartbeat_ping_batch_size_count") ?? 0, pings: sampleValue(samples, "vigil_heartbeat_ping_batch_size_sum") ?? 0 };
    };
    const before = await batches();
    // Every monitor's start at once, then two successes of each at once: the first success measures the run.
    now = new Date(now.getTime() + 1_000);
    const burst = (suffixes: string[]) => Promise.all(monitors.flatMap(({ path }) => suffixes.map((suffix) => api.fetch(path + suffix).then((r) => r.status))));
    expect([...(await burst(["/start"])), ...(await burst(["", ""]))]).toEqual(Array(120).fill(200));
    const after = await batches();
    expect(after.pings - before.pings).toBe(120);
    // A monitor's two successes go in two batches at least, after the starts'; 120 pings alone would be 120.
    expect(after.statements - before.statements).toBeGreaterThanOrEqual(3);
    expect(after.statements - before.statements).toBeLessThan(120);
    for (const { id } of monitors) {
      const kept = await api.db.prisma.heartbeatPing.findMany({ where: { monitorId: id }, orderBy: { seq: "asc" } });
      expect(kept.map((p) => [Number(p.seq), p.kind, p.durationMs])).toEqual([
        [1, "start", null],
        [2, "success", 0],
        [3, "success", null],
      ]);
    }
  });

  test("concurrent successes, failures and starts leave the monitor in the status of its newest success or failure", async () => {
    const { id, path } = await heartbeat();
    const token = path.split("/").pop()!;
    const kinds = ["fail", "success", "start", "fail", "fail", "success", "start", "success", "fail", "start"] as const;
    for (let round = 0; round < 4; round++) {
      now = new Date(now.getTime() + 1_000);
      await Promise.all(
        kinds.map((kind, i) => api.pipeline.pings.record(token, { kind, exitCode: null, body: `${round}.${i}`, method: "GET", address: "test", userAgent: "" })),
      );
      const [newest] = await api.db.prisma.heartbeatPing.findMany({ where: { monitorId: id, kind: { not: "start" } }, orderBy: { seq: "desc" }, take: 1 });
      const { monitor } = await write().getMonitor({ id });
      const status = (monitor!.config.value as { status: MonitorStatus }).status;
      expect({ round, status }).toEqual({ round, status: newest!.kind === "success" ? MonitorStatus.ACTIVE : MonitorStatus.ERROR });
      // An incident is open exactly while the monitor is failing.
      const open = (await api.incidents(ws.read.key).listIncidents({ monitorId: id })).incidents.filter((i) => i.resolvedAt === undefined);
      expect({ round, open: open.length }).toEqual({ round, open: status === MonitorStatus.ERROR ? 1 : 0 });
    }
  });

  test("ListHeartbeatPings of a checked monitor is refused, pointing to ListCheckResults", async () => {
    const { monitor } = await write().createHTTPMonitor({ monitor: { name: "site", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    expect(await codeOf(write().listHeartbeatPings({ id: monitor!.id }))).toBe(Code.FailedPrecondition);
  });
});

describe("heartbeat pings on PostgreSQL", () => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi("postgres")));
  afterAll(() => api.close());

  type Step = (tx: Prisma.TransactionClient) => Promise<unknown>;
  /** Holds the monitor's row in a transaction of the test's, which runs `step` and ends once `release` is called. */
  async function holding(id: string) {
    let held!: () => void;
    let release!: (step?: Step) => void;
    const isHeld = new Promise<void>((resolve) => (held = resolve));
    const next = new Promise<Step | undefined>((resolve) => (release = resolve));
    const done = api.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM monitors WHERE id = ${id} FOR NO KEY UPDATE`;
        held();
        await (await next)?.(tx);
      },
      { timeout: 60_000 },
    );
    await isHeld;
    return { release, done };
  }

  test("a batch that PostgreSQL ends for a deadlock is run again, and its pings are stored", async () => {
    const ws = await api.workspace();
    const record = (token: string) => api.pipeline.pings.record(token, { kind: "success", exitCode: null, body: "", method: "GET", address: "test", userAgent: "" });
    // pg_stat_activity keeps a statement's first kilobyte: the batch's input names its columns there.
    const batchWaits = async () =>
      (await api.db.prisma.$queryRaw<unknown[]>`
        SELECT 1 FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%AS i(token, ping_id%'`).length > 0;

    /** One deadlock between a batch and the test's transaction; whether PostgreSQL ended the batch (not the test's). */
    async function deadlock(): Promise<boolean> {
      const created = await Promise.all(
        ["a", "b", "c"].map(async (name) => (await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name, active: true } })).monitor!),
      );
      const [a, b, c] = created.sort((x, y) => (x.id < y.id ? -1 : 1)).map((m) => ({ id: m.id, token: new URL(m.pingUrl).pathname.split("/").pop()! }));
      // c's ping is stored alone and waits for c; a's and b's meanwhile go in the next batch, which takes a and waits for b.
      const [onC, onB] = [await holding(c!.id), await holding(b!.id)];
      const pingC = record(c!.token);
      const [pingA, pingB] = [record(a!.token), record(b!.token)];
      onC.release();
      await onC.done;
      expect(await pingC).not.toBeNull();
      await eventually(batchWaits, 30_000);
      // The test's transaction, holding b, now asks for a: each waits for the other. PostgreSQL ends the one whose
      // wait began first, the batch, unless this process was held up for a second (deadlock_timeout) meanwhile.
      onB.release((tx) => tx.$queryRaw`SELECT id FROM monitors WHERE id = ${a!.id} FOR SHARE`);
      const batchEnded = await onB.done.then(() => true, (error: unknown) => (isWriteConflict(error) ? false : Promise.reject(error)));
      const [storedA, storedB] = await Promise.all([pingA, pingB]);
      expect([storedA?.monitorId, storedB?.monitorId]).toEqual([a!.id, b!.id]);
      expect(await api.db.prisma.heartbeatPing.count({ where: { monitorId: { in: [a!.id, b!.id] } } })).toBe(2);
      return batchEnded;
    }
    let batchEnded = false;
    for (let tries = 0; tries < 3 && !batchEnded; tries++) batchEnded = await deadlock();
    expect(batchEnded).toBe(true);
  });
});
