import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MigrationList } from "@prisma/schema-engine-wasm";

/** prisma/ at the repository root, from src/ or dist/ of this package. */
export const prismaDir = resolve(__dirname, "../../../prisma");
export const schemaPath = join(prismaDir, "schema.prisma");
export const migrationsDir = join(prismaDir, "migrations");

/** Reads prisma/migrations the way the Prisma CLI hands it to the schema engine. */
export function readMigrationList(dir: string = migrationsDir): MigrationList {
  const lockPath = join(dir, "migration_lock.toml");
  const names = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: names.map((name) => {
      const file = join(dir, name, "migration.sql");
      return {
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: existsSync(file) ? { tag: "ok", value: readFileSync(file, "utf8") } : { tag: "error", value: `${file} is missing` },
        },
      };
    }),
  } as MigrationList;
}
