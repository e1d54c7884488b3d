/**
 * Developer command: writes prisma/migrations/<timestamp>_<name>/migration.sql
 * with the SQL that takes the existing migrations to prisma/schema.prisma.
 * Runs offline on a throwaway in-memory PGlite.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "./database";
import { migrationsDir, readMigrationList, schemaPath } from "./migrations";
import { openSchemaEngine } from "./schema-engine";

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error("usage: pnpm db:migration <name>   (name: lower case letters, digits, _)");
    process.exit(2);
  }
  const db = await openDatabase({ kind: "pglite", dataDir: null });
  const schema = { path: schemaPath, content: readFileSync(schemaPath, "utf8") };
  const engine = await openSchemaEngine(db.openSchemaSession().adapter, schema);
  try {
    const migrations = readMigrationList();
    // Diffing from the migrations replays them in a shadow database that the
    // driver adapter provides (an in-memory PGlite here).
    const from = migrations.migrationDirectories.length > 0 ? { tag: "migrations" as const, ...migrations } : { tag: "empty" as const };
    const { stdout } = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    if (!stdout || stdout.includes("-- This is an empty migration.")) {
      console.log("prisma/schema.prisma matches the migrations; nothing to write.");
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const dir = join(migrationsDir, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "migration.sql"), stdout);
    const lock = join(migrationsDir, "migration_lock.toml");
    if (!existsSync(lock)) writeFileSync(lock, 'provider = "postgresql"\n');
    console.log(`wrote ${join(dir, "migration.sql")}`);
  } finally {
    engine.free();
    await db.close();
  }
}

void main();
