import { driverRows, openDatabase, type Database } from "../src";
import { pgliteImage } from "../../../test/pglite-image";
import { createTestDatabase } from "../../../test/postgres";

const STATEMENT = `SELECT TIMESTAMP '2026-01-02 03:04:05.678' AT TIME ZONE 'UTC' AS at, '{"a":[1,"b"]}'::jsonb AS doc,
  ARRAY['x','y']::text[] AS list, $1::int AS n, $2::text AS s, $3::text[] @> ARRAY['q'] AS has`;

describe.each(["postgres", "pglite"] as const)("driverRows on %s", (backend) => {
  let db: Database;
  let drop = async () => {};
  const zone = process.env.TZ;

  beforeAll(async () => {
    if (backend === "pglite") db = await openDatabase({ kind: "pglite", dataDir: null, image: pgliteImage() });
    else {
      const created = await createTestDatabase();
      drop = created.drop;
      db = await openDatabase({ kind: "postgres", url: created.url });
    }
  });
  afterAll(async () => {
    process.env.TZ = zone;
    await db.close();
    await drop();
  });

  it("reads values as Prisma does, whatever the process's time zone", async () => {
    // A time zone far from UTC: a timestamp read as local time would be off by hours.
    process.env.TZ = "America/New_York";
    const [row] = await driverRows(db.prisma)<{ at: Date; doc: unknown; list: string[]; n: number; s: string; has: boolean }>(STATEMENT, [7, "t", ["p", "q"]]);
    expect(row!.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(row).toMatchObject({ doc: { a: [1, "b"] }, list: ["x", "y"], n: 7, s: "t", has: true });
    const [viaPrisma] = await db.prisma.$queryRawUnsafe<{ at: Date }[]>(STATEMENT, 7, "t", ["p", "q"]);
    expect(viaPrisma!.at.toISOString()).toBe(row!.at.toISOString());
  });
});
