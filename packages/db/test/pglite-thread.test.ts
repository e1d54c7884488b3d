import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Prisma } from "../src/generated/prisma/client";
import { driverRows, openDatabase, type Database } from "../src";
import { TransactionAbortedError } from "@electric-sql/pglite";
import { PGliteThread } from "../src/pglite-thread/client";
import { STATEMENTS_KEPT } from "../src/pglite-thread/statements";
import { pgliteImage } from "../../../test/pglite-image";

/** Long enough for the event loop to see it running on any machine: seconds of PGlite's work. */
const LONG_STATEMENT = "SELECT count(*)::int AS n FROM generate_series(1, 20000000)";

describe("embedded PGlite on its own thread", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ kind: "pglite", dataDir: null, image: pgliteImage() });
  });
  afterAll(() => db.close());

  it("keeps the event loop free while a statement runs", async () => {
    let finished = false;
    const statement = driverRows(db.prisma)<{ n: number }>(LONG_STATEMENT, []).then((rows) => ((finished = true), rows));
    // On the main thread the statement would hold the loop until its end, and this timer would only fire after it.
    await new Promise((fired) => setTimeout(fired, 20));
    expect(finished).toBe(false);
    expect(await statement).toEqual([{ n: 20_000_000 }]);
  });

  it("keeps a buffer cache in its data folder sized for the control plane's working set, not initdb's 128 MB", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "vigil-buffers-"));
    const inFolder = await openDatabase({ kind: "pglite", dataDir });
    try {
      expect(await driverRows(inFolder.prisma)("SHOW shared_buffers", [])).toEqual([{ shared_buffers: "16MB" }]);
    } finally {
      await inFolder.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("gives Prisma its values and its errors as the driver would", async () => {
    const workspace = await db.prisma.workspace.create({ data: { name: "Thread", slug: "thread" } });
    expect(workspace.createdAt).toBeInstanceOf(Date);
    const [row] = await db.prisma.$queryRaw<{ big: bigint; doc: unknown; at: Date; bytes: Uint8Array }[]>`
      SELECT 9007199254740993::bigint AS big, '{"a":[1,"b"]}'::jsonb AS doc,
        TIMESTAMPTZ '2026-01-02 03:04:05.678Z' AS at, '\\x0102ff'::bytea AS bytes`;
    expect(row!.big).toBe(9007199254740993n);
    expect(row!.doc).toEqual({ a: [1, "b"] });
    expect(row!.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect([...row!.bytes]).toEqual([1, 2, 255]);

    const duplicate = db.prisma.workspace.create({ data: { name: "Again", slug: "thread" } });
    await expect(duplicate).rejects.toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    await expect(duplicate).rejects.toMatchObject({ code: "P2002" });
  });

  it("commits a transaction that ends well and rolls back one that throws", async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.workspace.create({ data: { name: "Kept", slug: "kept" } });
    });
    const failed = db.prisma.$transaction(async (tx) => {
      await tx.workspace.create({ data: { name: "Dropped", slug: "dropped" } });
      // Another statement while this transaction is open waits for it, as it would on PGlite itself.
      throw new Error("changed my mind");
    });
    await expect(failed).rejects.toThrow("changed my mind");
    const slugs = (await db.prisma.workspace.findMany({ select: { slug: true } })).map((w) => w.slug);
    expect(slugs).toContain("kept");
    expect(slugs).not.toContain("dropped");
  });

  it("runs statements from outside a transaction after it, not inside it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.prisma.$transaction(async (tx) => {
      await tx.workspace.create({ data: { name: "Late", slug: "late" } });
      await held;
      throw new Error("rolled back");
    });
    await new Promise((fired) => setTimeout(fired, 50));
    const outside = db.prisma.workspace.findUnique({ where: { slug: "late" } });
    release();
    await expect(transaction).rejects.toThrow("rolled back");
    expect(await outside).toBeNull();
  });
});

describe("the PGlite thread itself", () => {
  it("keeps what it wrote in its data folder across a close", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "vigil-pglite-thread-"));
    try {
      const first = await PGliteThread.open({ dataDir });
      await first.exec("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)");
      await first.close();
      await expect(first.query("SELECT 1")).rejects.toThrow("the embedded database is closed");
      const second = await PGliteThread.open({ dataDir });
      expect((await second.query<{ total: number }>("SELECT sum(n)::int AS total FROM kept")).rows).toEqual([{ total: 3 }]);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("opens copies of an image it saved, each apart from the others", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "vigil-pglite-image-"));
    const image = path.join(folder, "image.tar");
    try {
      const original = await PGliteThread.open({ dataDir: null });
      await original.exec("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)");
      await original.saveImage(image);
      await original.close();
      const [one, two] = await Promise.all([PGliteThread.open({ dataDir: null, image }), PGliteThread.open({ dataDir: null, image })]);
      await one.exec("INSERT INTO kept VALUES (4)");
      const total = async (thread: PGliteThread) => (await thread.query<{ total: number }>("SELECT sum(n)::int AS total FROM kept")).rows;
      expect(await total(one)).toEqual([{ total: 7 }]);
      expect(await total(two)).toEqual([{ total: 3 }]);
      await Promise.all([one.close(), two.close()]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("parses the caller's types on the caller's side, rows as arrays", async () => {
    const thread = await PGliteThread.open({ dataDir: null });
    try {
      const results = await thread.query("SELECT 41::int AS n, NULL::int AS none, 'x'::text AS t", [], {
        rowMode: "array",
        parsers: { 23: (text: string) => `int:${text}` },
      });
      expect(results.rows).toEqual([["int:41", null, "x"]]);
    } finally {
      await thread.close();
    }
  });

  it("rejects a statement's error with PostgreSQL's fields", async () => {
    const thread = await PGliteThread.open({ dataDir: null });
    try {
      await expect(thread.query("SELECT 1/0")).rejects.toMatchObject({ code: "22012", message: "division by zero" });
      // The thread goes on after an error.
      expect((await thread.query<{ n: number }>("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
    } finally {
      await thread.close();
    }
  });

  it("keeps a process alive while a statement runs, and lets it end once idle", async () => {
    // A script that never closes its database: it must still print its answer, and then exit on its own.
    const script = `
      const { PGliteThread } = require(${JSON.stringify(path.join(__dirname, "../dist/pglite-thread/client.js"))});
      PGliteThread.open({ dataDir: null })
        .then((thread) => thread.query(${JSON.stringify(LONG_STATEMENT)}))
        .then((results) => console.log(JSON.stringify(results.rows)));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { timeout: 90_000 });
    expect(JSON.parse(stdout)).toEqual([{ n: 20_000_000 }]);
  });

  describe("statements", () => {
    let thread: PGliteThread;
    beforeAll(async () => {
      thread = await PGliteThread.open({ dataDir: null });
    });
    afterAll(() => thread.close());

    const preparedCount = async (text?: string) =>
      (await thread.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE $1::text IS NULL OR statement = $1", [text ?? null]))
        .rows[0]!.n;

    it("prepares a text once, however often it runs", async () => {
      const text = "SELECT $1::int + 1 AS n";
      for (let i = 0; i < 20; i++) expect((await thread.query<{ n: number }>(text, [i])).rows).toEqual([{ n: i + 1 }]);
      expect(await preparedCount(text)).toBe(1);
    });

    it("keeps at most STATEMENTS_KEPT prepared, closing the least recently used", async () => {
      for (let i = 0; i < STATEMENTS_KEPT + 40; i++) await thread.query(`SELECT ${i} AS n, $1::int AS m`, [i]);
      expect(await preparedCount("SELECT 0 AS n, $1::int AS m")).toBe(0);
      expect(await preparedCount()).toBeLessThanOrEqual(STATEMENTS_KEPT);
      expect((await thread.query<{ n: number; m: number }>("SELECT 0 AS n, $1::int AS m", [7])).rows).toEqual([{ n: 0, m: 7 }]);
    });

    it("describes a table's rows anew after a script changed it", async () => {
      await thread.exec("CREATE TABLE widened (a int); INSERT INTO widened VALUES (1)");
      expect((await thread.query("SELECT * FROM widened")).rows).toEqual([{ a: 1 }]);
      await thread.exec("ALTER TABLE widened ADD COLUMN b text DEFAULT 'x'");
      expect((await thread.query("SELECT * FROM widened")).rows).toEqual([{ a: 1, b: "x" }]);
    });

    it("writes each value as its parameter's type", async () => {
      const at = new Date("2026-01-02T03:04:05.678Z");
      const [row] = (
        await thread.query<Record<string, unknown>>("SELECT $1::jsonb AS doc, $2::timestamptz AS at, $3::bytea AS bytes, $4::bool AS yes, $5::int[] AS list, $6::text AS none", [
          { a: [1, "b"] },
          at,
          new Uint8Array([1, 2, 255]),
          true,
          [1, 2],
          null,
        ])
      ).rows;
      expect(row).toEqual({ doc: { a: [1, "b"] }, at, bytes: new Uint8Array([1, 2, 255]), yes: true, list: [1, 2], none: null });
    });

    it("refuses a statement of a transaction that a rollback ended before it ran", async () => {
      await thread.transaction(async (tx) => {
        const rolledBack = tx.rollback();
        await expect(tx.query("SELECT 1")).rejects.toThrow("Transaction is closed");
        await rolledBack;
      });
      expect((await thread.query<{ n: number }>("SELECT 3 AS n")).rows).toEqual([{ n: 3 }]);
    });

    it("fails the commit of a transaction that a statement aborted, and frees the session", async () => {
      const committed = thread.transaction(async (tx) => {
        await expect(tx.query("SELECT 1/0")).rejects.toMatchObject({ code: "22012" });
        await expect(tx.query("SELECT 1")).rejects.toMatchObject({ code: "25P02" });
      });
      await expect(committed).rejects.toThrow(new TransactionAbortedError().message);
      expect((await thread.query<{ n: number }>("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
    });
  });
});
