#!/usr/bin/env node
import { applyMigrations, describeTarget, openDatabase } from "@vigil/db";
import { loadConfig } from "./config";
import { lockDataDir } from "./data-dir-lock";

/** Applies pending migrations to DATABASE_URL, or to the embedded database in DATA_DIR. */
async function main(): Promise<void> {
  const config = loadConfig();
  const lock = config.database.kind === "pglite" ? lockDataDir(config.dataDir) : undefined;
  const db = await openDatabase(config.database, { poolSize: config.databasePoolSize });
  try {
    const applied = await applyMigrations(db);
    console.log(`${describeTarget(config.database)}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
  } finally {
    await db.close();
    lock?.release();
  }
}

main().catch((error: unknown) => {
  console.error(`migrate: ${(error as Error).message}`);
  process.exit(1);
});
