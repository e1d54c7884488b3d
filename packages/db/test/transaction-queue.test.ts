import { openDatabase, type Database } from "../src";
import { pgliteImage } from "../../../test/pglite-image";

/**
 * More transactions at once than there are connections wait their turn for PGlite's one connection: 30 of 100 ms
 * each make the last wait about 3 s, past Prisma's default maxWait of 2 s. (On PostgreSQL the pool's own connect
 * timeout, 5 s, also bounds the wait in its queue: a loaded machine passes it, so that backend is not asserted here.)
 */
describe("transactions queued for PGlite's connection", () => {
  let db: Database;

  beforeAll(async () => {
    db = await openDatabase({ kind: "pglite", dataDir: null, image: pgliteImage() });
  });
  afterAll(() => db.close());

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
