import { readFileSync } from "node:fs";
import type { Database } from "./database";
import { readMigrationList, schemaPath } from "./migrations";
import { openSchemaEngine } from "./schema-engine";

/** Applies the pending migrations of prisma/migrations; returns the names applied. */
export async function applyMigrations(db: Pick<Database, "adapter">): Promise<string[]> {
  const engine = await openSchemaEngine(db.adapter, { path: schemaPath, content: readFileSync(schemaPath, "utf8") });
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({
      migrationsList: readMigrationList(),
      filters: { externalTables: [], externalEnums: [] },
    });
    return appliedMigrationNames;
  } finally {
    engine.free();
  }
}
