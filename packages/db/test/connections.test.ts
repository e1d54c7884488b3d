import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client } from "pg";
import { DEFAULT_POOL_SIZE, openDatabase } from "../src/database";
import { driverRows } from "../src/driver-rows";
import { applyMigrations } from "../src/migrate";
import { createTestDatabase } from "../../../test/postgres";
import { TcpProxy } from "../../../test/tcp-proxy";
import { eventually } from "../../../test/eventually";

setFlagsFromString("--expose-gc");
/** A full garbage collection, once the current job's WeakRef targets are no longer held for it. */
async function collectGarbage(): Promise<void> {
  await new Promise((settle) => setTimeout(settle, 0));
  (runInNewContext("gc") as () => void)();
}

/** A session of the test's own that counts the other sessions on the database, connected before it is needed. */
async function observe(url: string) {
  const observer = new Client({ connectionString: url });
  await observer.connect();
  return {
    async sessions(): Promise<number> {
      const { rows } = await observer.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      return rows[0]!.n;
    },
    end: () => observer.end(),
  };
}

/** Ends every other connection to the database; answers how many it ended. */
async function terminateOthers(url: string): Promise<number> {
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe("PostgreSQL connections", () => {
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => ({ url, drop } = await createTestDatabase()));
  afterAll(() => drop());

  it("survives the server ending idle connections, reports it, and answers the next query on a new one", async () => {
    const lost: Error[] = [];
    const db = await openDatabase({ kind: "postgres", url }, { onConnectionLost: (error) => lost.push(error) });
    try {
      await Promise.all([1, 2, 3].map(() => db.prisma.$queryRaw`SELECT pg_sleep(0.05)::text`));
      const ended = await terminateOthers(url);
      // The pool hears of each ended connection when its socket is next read, which a loaded machine may delay;
      // until it has heard of them all, the next query could be handed one of them.
      expect(ended).toBeGreaterThan(0);
      await eventually(() => expect(lost.length).toBeGreaterThanOrEqual(ended));
      expect(lost[0]!.message).toContain("terminating connection due to administrator command");
      expect(await db.prisma.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it("fails a query whose connection is cut while it runs, and answers the next one on a new connection", async () => {
    const direct = new URL(url);
    const proxy = await TcpProxy.start(direct.hostname, Number(direct.port || 5432));
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    const db = await openDatabase({ kind: "postgres", url: proxied.toString() });
    try {
      const rows = driverRows(db.prisma);
      const sleeping = rows("SELECT pg_sleep(30)::text", []).then(() => null, (error: Error) => error);
      await new Promise((settle) => setTimeout(settle, 200));
      // The socket goes without a word from the server: the connection emits an error of its own besides failing the query.
      proxy.cutOff();
      // How the cut reads depends on the order the socket's end and reset reach the driver: either is a cut connection.
      expect((await sleeping)?.message).toMatch(/Connection terminated unexpectedly|ECONNRESET/);
      proxy.restore();
      expect(await rows("SELECT 1 AS one", [])).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
      await proxy.close();
      // The server's end of the cut connection sleeps on until it next writes.
      await terminateOthers(url);
    }
  });

  it("keeps the connections it opened while they are idle, so that the next burst of calls does not wait for new ones", async () => {
    const db = await openDatabase({ kind: "postgres", url });
    const observer = await observe(url);
    try {
      await Promise.all(Array.from({ length: 4 }, () => db.prisma.$queryRaw`SELECT pg_sleep(0.05)::text`));
      const opened = await observer.sessions();
      expect(opened).toBeGreaterThanOrEqual(2);
      // pg's pool closes a connection idle for 10 s unless it is told to keep it.
      await new Promise((settle) => setTimeout(settle, 11_000));
      expect(await observer.sessions()).toBe(opened);
    } finally {
      await db.close();
      await observer.end();
    }
  }, 20_000);

  it("releases the migrations' advisory lock while it stays open, so that another control plane can migrate at once", async () => {
    const first = await openDatabase({ kind: "postgres", url });
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      await applyMigrations(first);
      const held = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
      expect(held.rows[0]!.n).toBe(0);
      const second = await openDatabase({ kind: "postgres", url });
      try {
        // Prisma's engine gives up after waiting 10 s for the lock, which fails a control plane's start.
        await expect(applyMigrations(second)).resolves.toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      await admin.end();
    }
  });

  it("opens at most poolSize connections however many queries run at once, DEFAULT_POOL_SIZE without it", async () => {
    const pidsOf = async (poolSize?: number) => {
      const db = await openDatabase({ kind: "postgres", url }, poolSize === undefined ? {} : { poolSize });
      try {
        // Each query holds its connection while the others ask for one, so the pool opens all it may.
        const answers = await Promise.all(
          Array.from({ length: DEFAULT_POOL_SIZE + 2 }, () => driverRows(db.prisma)<{ pid: number }>("SELECT pg_backend_pid() AS pid FROM pg_sleep(0.2)", [])),
        );
        return new Set(answers.map(([row]) => row!.pid)).size;
      } finally {
        await db.close();
      }
    };
    expect(await pidsOf(2)).toBe(2);
    expect(await pidsOf()).toBe(DEFAULT_POOL_SIZE);
  });

  it("keeps nothing of the answer of the query that opened a connection once its caller let go of it", async () => {
    const db = await openDatabase({ kind: "postgres", url });
    try {
      // Each of these opens one of the pool's connections, which then stays open.
      let answers: unknown[][] | undefined = await Promise.all([1, 2, 3].map((n) => driverRows(db.prisma)<{ n: number }>("SELECT generate_series(1, $1::int * 1000) AS n", [n])));
      expect(answers.map((rows) => rows.length)).toEqual([1000, 2000, 3000]);
      const kept = answers.map((rows) => new WeakRef(rows));
      answers = undefined;
      await collectGarbage();
      expect(kept.map((ref) => ref.deref())).toEqual([undefined, undefined, undefined]);
      // The connections are still there, and answer.
      expect(await driverRows(db.prisma)<{ one: number }>("SELECT 1 AS one", [])).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it("has ended every session once close() resolves, so the database can be dropped at once", async () => {
    const db = await openDatabase({ kind: "postgres", url });
    const observer = await observe(url);
    try {
      await Promise.all(Array.from({ length: 5 }, () => db.prisma.$queryRaw`SELECT pg_sleep(0.02)::text`));
      expect(await observer.sessions()).toBeGreaterThanOrEqual(1);
      await db.close();
      expect(await observer.sessions()).toBe(0);
    } finally {
      await observer.end();
    }
  });
});
