import { applyMigrations, openDatabase } from "@vigil/db";
import { savePgliteImage } from "./pglite-image";
import { recreateDatabase, templateDatabase } from "./postgres";

/** Starts PostgreSQL if needed and migrates the template that each test file's database is copied from; saves PGlite's likewise. */
export default async function globalSetup(): Promise<void> {
  await Promise.all([migratePostgresTemplate(), savePgliteImage()]);
}

async function migratePostgresTemplate(): Promise<void> {
  const url = await recreateDatabase(templateDatabase());
  const db = await openDatabase({ kind: "postgres", url });
  try {
    await applyMigrations(db);
  } finally {
    await db.close();
  }
}
