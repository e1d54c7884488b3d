import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Database, DatabaseTarget } from "./database";
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

/** What the migration process (./migrate-process.ts) answers its parent. */
export type MigrationAnswer = { applied: string[] } | { error: string };

/** The built migration process, also when this module is loaded from its sources (the tests). */
const MIGRATE_PROCESS = path.join(__dirname, "../dist/migrate-process.js");

/**
 * applyMigrations in a process of its own, for a long-running process to call before it opens `target`: what
 * migrating loads and grows never leaves a process's memory while it runs (Prisma's schema engine, and on PGlite
 * the memory its initdb and the migrations took): a control plane's first start on PGlite held 848 MiB at idle for
 * it, and every later start about 25 MiB more than it now does.
 */
export function applyMigrationsApart(target: DatabaseTarget): Promise<string[]> {
  // execArgv: [] so that a parent's profiling or inspector flags do not follow it.
  const child = fork(MIGRATE_PROCESS, { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((applied, failed) => {
    let answer: MigrationAnswer | undefined;
    child.once("message", (message: MigrationAnswer) => (answer = message));
    child.once("error", failed);
    child.once("exit", (code, signal) => {
      if (answer && "applied" in answer) applied(answer.applied);
      else failed(new Error(answer ? answer.error : `the migration process ended (${signal ?? `exit code ${code}`}) without an answer`));
    });
    child.send(target);
  });
}
