import { mkdirSync } from "node:fs";
import lockfile from "proper-lockfile";

/**
 * Embedded PGlite may be opened by one process at a time; this lock on the
 * data folder makes a second opener fail with a clear message instead of
 * corrupting it. A lock left by a crashed process goes stale after 10 s.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, { stale: 10_000, update: 2_000, realpath: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new Error(`the data folder ${dataDir} is in use by another Vigil process`);
    }
    throw error;
  }
}
