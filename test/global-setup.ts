import { applyMigrations, openDatabase } from "@vigil/db";
import { recreateDatabase, templateDatabase } from "./postgres";

/** Starts PostgreSQL if needed and migrates the template that each test file's database is copied from. */
export default async function globalSetup(): Promise<void> {
  const url = await recreateDatabase(templateDatabase());
  const db = await openDatabase({ kind: "postgres", url });
  try {
    await applyMigrations(db);
  } finally {
    await db.close();
  }
}
