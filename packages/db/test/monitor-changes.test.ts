import pg from "pg";
import { applyMigrations, monitorChanges, openDatabase, type Database, type MonitorChange } from "../src";
import { CHANGE_FEED_APPLICATION_NAME, ServerMonitorChanges } from "../src/server-monitor-changes";
import { startPgBouncer } from "../../../test/pgbouncer";
import { createTestDatabase } from "../../../test/postgres";

async function addMonitor(db: Database, name: string): Promise<{ monitorId: string; workspaceId: string }> {
  const workspace = await db.prisma.workspace.upsert({ where: { slug: "changes" }, create: { name: "changes", slug: "changes" }, update: {} });
  const monitor = await db.prisma.monitor.create({
    data: { workspaceId: workspace.id, kind: "http", name, target: "https://example.com", periodicity: "30s", timeoutMs: 1000, retry: 0, regions: [], active: true, public: false, degradedAtMs: 1000 },
  });
  return { monitorId: monitor.id, workspaceId: workspace.id };
}

const addedOrRemoved = (monitor: { monitorId: string; workspaceId: string }): MonitorChange => ({ ...monitor, membership: true });
const updated = (monitor: { monitorId: string; workspaceId: string }): MonitorChange => ({ ...monitor, membership: false });

describe("changed monitors announced by embedded PGlite", () => {
  let db: Database;
  const heard: (MonitorChange | null)[] = [];

  beforeAll(async () => {
    db = await openDatabase({ kind: "pglite", dataDir: null });
    await applyMigrations(db);
    monitorChanges(db.prisma)!.subscribe((change) => heard.push(change));
  });
  afterAll(() => db.close());
  beforeEach(() => void heard.splice(0));

  it("tells of each added, updated or deleted monitor before the answer of the statement that changed it", async () => {
    const first = await addMonitor(db, "first");
    expect(heard).toEqual([addedOrRemoved(first)]);
    const second = await addMonitor(db, "second");
    await db.prisma.$executeRaw`UPDATE monitors SET status = 'error' WHERE id = ${first.monitorId}`;
    expect(heard).toEqual([addedOrRemoved(first), addedOrRemoved(second), updated(first)]);
    await db.prisma.monitor.update({ where: { id: second.monitorId }, data: { name: "renamed" } });
    expect(heard.at(-1)).toEqual(updated(second));
    await db.prisma.monitor.delete({ where: { id: first.monitorId } });
    expect(heard.at(-1)).toEqual(addedOrRemoved(first));
  });

  it("tells of a transaction's changes when it commits, and never of one rolled back", async () => {
    const monitor = await addMonitor(db, "in a transaction");
    heard.splice(0);
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE monitors SET name = 'never' WHERE id = ${monitor.monitorId}`;
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(heard).toEqual([]);
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE monitors SET name = 'kept' WHERE id = ${monitor.monitorId}`;
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([updated(monitor)]);
  });

  it("tells of a workspace's cascade, and that every monitor may have changed after a TRUNCATE", async () => {
    const monitor = await addMonitor(db, "cascaded");
    await db.prisma.workspace.delete({ where: { slug: "changes" } });
    expect(heard).toContainEqual(addedOrRemoved(monitor));
    await addMonitor(db, "truncated");
    heard.splice(0);
    await db.prisma.$executeRawUnsafe("TRUNCATE monitors CASCADE");
    expect(heard).toEqual([null]);
  });
});

describe("changed monitors on a PostgreSQL server", () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  /** Another control plane's connection: its commits reach this process's feed only through the server. */
  let elsewhere: pg.Client;
  const heard: (MonitorChange | null)[] = [];
  const lost: Error[] = [];
  const feed = () => monitorChanges(db.prisma)!;
  const untilCaughtUp = async () => {
    while (!(await feed().caughtUp())) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ kind: "postgres", url }, { onChangeFeedLost: (error) => lost.push(error) });
    await applyMigrations(db);
    elsewhere = new pg.Client({ connectionString: url });
    await elsewhere.connect();
    feed().subscribe((change) => heard.push(change));
    await untilCaughtUp();
  });
  afterAll(async () => {
    await elsewhere.end();
    await db.close();
    await drop();
  });
  beforeEach(() => void heard.splice(0));

  it("has heard every change another session committed once it is caught up, without waiting", async () => {
    const monitor = await addMonitor(db, "on a server");
    expect(await feed().caughtUp()).toBe(true);
    expect(heard).toEqual([addedOrRemoved(monitor)]);
    // The fence is what makes this exact: each commit is followed at once by the question.
    for (let i = 0; i < 100; i++) {
      await elsewhere.query("UPDATE monitors SET name = $1 WHERE id = $2", [`renamed ${i}`, monitor.monitorId]);
      expect(await feed().caughtUp()).toBe(true);
      expect(heard).toHaveLength(i + 2);
      expect(heard.at(-1)).toEqual(updated(monitor));
    }
    // Readers that ask at once share fences and all hear the change.
    await elsewhere.query("DELETE FROM monitors WHERE id = $1", [monitor.monitorId]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => feed().caughtUp().then((caughtUp) => [caughtUp, heard.at(-1)])));
    expect(answers).toEqual(Array.from({ length: 20 }, () => [true, addedOrRemoved(monitor)]));
  });

  it("never tells of a transaction rolled back", async () => {
    const monitor = await addMonitor(db, "rolled back");
    await elsewhere.query("BEGIN");
    await elsewhere.query("UPDATE monitors SET name = 'never' WHERE id = $1", [monitor.monitorId]);
    await elsewhere.query("ROLLBACK");
    expect(await feed().caughtUp()).toBe(true);
    expect(heard).toEqual([addedOrRemoved(monitor)]);
  });

  it("tells readers to ask the database while its connection is lost, and that every monitor may have changed once back", async () => {
    const { rows } = await elsewhere.query(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
      [CHANGE_FEED_APPLICATION_NAME],
    );
    expect(rows).toEqual([{ ended: true }]);
    while (lost.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await feed().caughtUp()).toBe(false);
    expect(heard).toEqual([null]);
    // A change made while nobody listened is covered by the "every monitor" told once the feed is back.
    const monitor = await addMonitor(db, "while lost");
    await untilCaughtUp();
    // (Had the feed come back before the insert, it would have heard it: the two nulls are what matter.)
    expect(heard.filter((change) => change === null)).toEqual([null, null]);
    expect(heard.at(-1)).toBeNull();
    await elsewhere.query("UPDATE monitors SET name = 'heard again' WHERE id = $1", [monitor.monitorId]);
    expect(await feed().caughtUp()).toBe(true);
    expect(heard.at(-1)).toEqual(updated(monitor));
  });

  it("stops for good, leaving every read to the database, when its fence reaches another session than the one that listens", async () => {
    const bouncer = await startPgBouncer();
    const pooled = bouncer.url(new URL(url).pathname.slice(1));
    const errors: Error[] = [];
    const pooledFeed = new ServerMonitorChanges(pooled, (error) => errors.push(error));
    const other = new pg.Client({ connectionString: pooled });
    try {
      const told: (MonitorChange | null)[] = [];
      pooledFeed.subscribe((change) => told.push(change));
      // Alone on the pool, the fence reuses the server connection that listened (PgBouncer hands out the last used).
      while (!(await pooledFeed.caughtUp())) await new Promise((resolve) => setTimeout(resolve, 50));
      // Another client's open transaction now holds that connection, so the next fence runs on another.
      await other.connect();
      await other.query("BEGIN");
      await other.query("SELECT 1");
      expect(await pooledFeed.caughtUp()).toBe(false);
      expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/another session than the one that listens/)]);
      expect(told.at(-1)).toBeNull();
      await other.query("COMMIT");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await pooledFeed.caughtUp()).toBe(false);
    } finally {
      await other.end();
      await pooledFeed.close();
      await bouncer.stop();
    }
  });

  it("keeps hearing behind a pool in transaction mode when given a direct URL for its session (DATABASE_DIRECT_URL)", async () => {
    const bouncer = await startPgBouncer();
    const pooled = await openDatabase({ kind: "postgres", url: bouncer.url(new URL(url).pathname.slice(1)), directUrl: url });
    const other = new pg.Client({ connectionString: bouncer.url(new URL(url).pathname.slice(1)) });
    try {
      const told: (MonitorChange | null)[] = [];
      const pooledFeed = monitorChanges(pooled.prisma)!;
      pooledFeed.subscribe((change) => told.push(change));
      while (!(await pooledFeed.caughtUp())) await new Promise((resolve) => setTimeout(resolve, 50));
      // What stopped the feed above (another client's transaction holding a pooled server connection) does not reach it.
      await other.connect();
      await other.query("BEGIN");
      await other.query("SELECT 1");
      // Written through the pool, heard on the session.
      const monitor = await addMonitor(pooled, "through the pool");
      expect(await pooledFeed.caughtUp()).toBe(true);
      expect(told.at(-1)).toEqual(addedOrRemoved(monitor));
      await other.query("COMMIT");
    } finally {
      await other.end();
      await pooled.close();
      await bouncer.stop();
    }
  });
});
