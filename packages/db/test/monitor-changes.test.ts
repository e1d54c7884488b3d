import pg from "pg";
import { applyMigrations, monitorChanges, openDatabase, type Database } from "../src";
import { MONITOR_CHANGES_CHANNEL } from "../src/monitor-changes";
import { createTestDatabase } from "../../../test/postgres";

async function addMonitor(db: Database, name: string): Promise<string> {
  const workspace = await db.prisma.workspace.upsert({ where: { slug: "changes" }, create: { name: "changes", slug: "changes" }, update: {} });
  const monitor = await db.prisma.monitor.create({
    data: { workspaceId: workspace.id, kind: "http", name, target: "https://example.com", periodicity: "30s", timeoutMs: 1000, retry: 0, regions: [], active: true, public: false, degradedAtMs: 1000 },
  });
  return monitor.id;
}

describe("changed monitors announced by embedded PGlite", () => {
  let db: Database;
  const heard: (string | null)[] = [];

  beforeAll(async () => {
    db = await openDatabase({ kind: "pglite", dataDir: null });
    await applyMigrations(db);
    monitorChanges(db.prisma)!.subscribe((id) => heard.push(id));
  });
  afterAll(() => db.close());
  beforeEach(() => void heard.splice(0));

  it("tells of each updated or deleted monitor before the answer of the statement that changed it", async () => {
    const [first, second] = [await addMonitor(db, "first"), await addMonitor(db, "second")];
    expect(heard).toEqual([]);
    await db.prisma.$executeRaw`UPDATE monitors SET status = 'error' WHERE id = ${first}`;
    expect(heard).toEqual([first]);
    await db.prisma.monitor.update({ where: { id: second }, data: { name: "renamed" } });
    expect(heard).toEqual([first, second]);
    await db.prisma.monitor.delete({ where: { id: first } });
    expect(heard).toEqual([first, second, first]);
  });

  it("tells of a transaction's changes when it commits, and never of one rolled back", async () => {
    const id = await addMonitor(db, "in a transaction");
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE monitors SET name = 'never' WHERE id = ${id}`;
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(heard).toEqual([]);
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE monitors SET name = 'kept' WHERE id = ${id}`;
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([id]);
  });

  it("tells that every monitor may have changed after a TRUNCATE or a workspace's cascade", async () => {
    const id = await addMonitor(db, "cascaded");
    await db.prisma.workspace.delete({ where: { slug: "changes" } });
    expect(heard).toContain(id);
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
      const id = await addMonitor(db, "on a server");
      await db.prisma.$executeRaw`UPDATE monitors SET name = 'renamed' WHERE id = ${id}`;
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
