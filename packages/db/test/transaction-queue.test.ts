import { openDatabase, type Database } from "../src";
import { createTestDatabase } from "../../../test/postgres";

/**
 * More transactions at once than there are connections wait their turn: PGlite has one, and the pool here one too.
 * 30 of 100 ms each make the last wait about 3 s, past Prisma's default maxWait of 2 s.
 */
describe.each(["postgres", "pglite"] as const)("transactions queued for a connection on %s", (backend) => {
  let db: Database;
  let drop = async () => {};

  beforeAll(async () => {
    if (backend === "pglite") db = await openDatabase({ kind: "pglite", dataDir: null });
    else {
      const created = await createTestDatabase();
      drop = created.drop;
      db = await openDatabase({ kind: "postgres", url: created.url }, { poolSize: 1 });
    }
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  it("all commit, each in its turn, none refused for waiting", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        db.prisma.$transaction(async (tx) => {
          await tx.$executeRaw`SELECT pg_sleep(0.1)`;
          return i;
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    expect(outcomes.map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});
