/**
 * The process applyMigrationsApart (./migrate.ts) forks: takes the database's target from its parent, applies the
 * pending migrations, answers the names applied or the error, and exits.
 */
import { openDatabase, type DatabaseTarget } from "./database";
import { applyMigrations, type MigrationAnswer } from "./migrate";

async function migrate(target: DatabaseTarget): Promise<MigrationAnswer> {
  try {
    const db = await openDatabase(target, { poolSize: 1 });
    try {
      return { applied: await applyMigrations(db) };
    } finally {
      await db.close();
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

process.once("message", (target: DatabaseTarget) => {
  void migrate(target).then((answer) => process.send!(answer, () => process.exit(0)));
});
