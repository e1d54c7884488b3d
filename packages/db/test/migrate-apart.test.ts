import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../src/database";
import { applyMigrationsApart } from "../src/migrate";
import { readMigrationList } from "../src/migrations";
import { databaseUrl, postgresServerUrl } from "../../../test/postgres";

/** Migrations applied by a process of their own, as a control plane applies them before it opens its database. */
describe("applyMigrationsApart", () => {
  it("creates a new folder's embedded database, applies every migration once, and leaves it for the caller to open", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "vigil-migrate-apart-"));
    try {
      const all = readMigrationList().migrationDirectories.map((migration) => migration.path);
      expect(await applyMigrationsApart({ kind: "pglite", dataDir })).toEqual(all);
      expect(await applyMigrationsApart({ kind: "pglite", dataDir })).toEqual([]);
      const db = await openDatabase({ kind: "pglite", dataDir });
      try {
        expect(await db.prisma.monitor.count()).toBe(0);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("answers the error of a database it cannot migrate", async () => {
    const url = databaseUrl(postgresServerUrl(), "vigil_no_such_database");
    await expect(applyMigrationsApart({ kind: "postgres", url })).rejects.toThrow(/vigil_no_such_database/);
  });
});
