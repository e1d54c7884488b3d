import pg from "pg";
import { applyMigrations, monitorChanges, openDatabase, type Database, type MonitorChange } from "../src";
import { MONITOR_CHANGES_CHANNEL } from "../src/monitor-changes";
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

describe("changed monitors on PostgreSQL", () => {
  it("has no feed, and its writers announce nothing to a listening session", async () => {
    const { url, drop } = await createTestDatabase();
    const db = await openDatabase({ kind: "postgres", url });
    const listener = new pg.Client({ connectionString: url });
    try {
      await applyMigrations(db);
      expect(monitorChanges(db.prisma)).toBeNull();
      await listener.connect();
      const heard: string[] = [];
      listener.on("notification", ({ channel }) => heard.push(channel));
      await listener.query(`LISTEN ${MONITOR_CHANGES_CHANNEL}`);
      await listener.query("LISTEN marker");
      const { monitorId } = await addMonitor(db, "on a server");
      await db.prisma.$executeRaw`UPDATE monitors SET name = 'renamed' WHERE id = ${monitorId}`;
      await db.prisma.monitor.delete({ where: { id: monitorId } });
      // Notifications reach a listener in commit order: once the marker sent after the update arrives, any the
      // update sent would have arrived before it.
      const marked = new Promise((arrived) => listener.on("notification", ({ channel }) => channel === "marker" && arrived(null)));
      await db.prisma.$executeRawUnsafe("NOTIFY marker");
      await marked;
      expect(heard).toEqual(["marker"]);
    } finally {
      await listener.end();
      await db.close();
      await drop();
    }
  });
});
