import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The statements of the migration whose folder ends with `_<name>`, from the line that starts with `from` on. */
export function migrationStatements(name: string, from: string): string[] {
  const migrations = join(__dirname, "../../../../prisma/migrations");
  const dir = readdirSync(migrations).find((folder) => folder.endsWith(`_${name}`))!;
  const sql = readFileSync(join(migrations, dir, "migration.sql"), "utf8");
  return sql
    .slice(sql.indexOf(from))
    .split(";")
    .map((part) => part.replace(/^--.*$/gm, "").trim())
    .filter(Boolean);
}
