import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations, openDatabase } from "@vigil/db";

/**
 * The migrated embedded database every test's in-memory one is a copy of: saved once per run (global-setup.ts), so
 * that a test file's database opens in under a second rather than in the six that creating and migrating one take.
 * Named per run so runs can overlap.
 */
export function pgliteImage(): string {
  process.env.VIGIL_TEST_PGLITE_IMAGE ??= path.join(tmpdir(), `vigil-test-pglite-${process.pid}.tar`);
  return process.env.VIGIL_TEST_PGLITE_IMAGE;
}

export async function savePgliteImage(): Promise<void> {
  const db = await openDatabase({ kind: "pglite", dataDir: null });
  try {
    await applyMigrations(db);
    await db.saveImage!(pgliteImage());
  } finally {
    await db.close();
  }
}

export const removePgliteImage = () => rmSync(pgliteImage(), { force: true });
