import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DatabaseTarget } from "@vigil/db";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";

/** A fresh, empty database for a benchmark's server process: PGlite in a temporary folder, or `name` on the machine's PostgreSQL. */
export async function benchDatabase(backend: "postgres" | "pglite", name: string): Promise<{ target: DatabaseTarget; remove: () => Promise<void> }> {
  if (backend === "pglite") {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-pglite-"));
    return { target: { kind: "pglite", dataDir }, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const url = await recreateDatabase(name);
  return { target: { kind: "postgres", url }, remove: () => dropDatabase(name) };
}
