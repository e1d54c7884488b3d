import { readFileSync } from "node:fs";
import type { Database } from "./database";
import { readMigrationList, schemaPath } from "./migrations";
import { openSchemaEngine } from "./schema-engine";

/** Applies the pending migrations of prisma/migrations; returns the names applied. */
export async function applyMigrations(db: Pick<Database, "openSchemaSession">): Promise<string[]> {
  const session = db.openSchemaSession();
  try {
    const engine = await openSchemaEngine(session.adapter, { path: schemaPath, content: readFileSync(schemaPath, "utf8") });
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({
        migrationsList: readMigrationList(),
        filters: { externalTables: [], externalEnums: [] },
      });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  } finally {
    await session.end();
  }
}
