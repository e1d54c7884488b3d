import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { tryLock } from "fs-native-extensions";

/** The file whose lock is the data folder's; while a process holds it, it holds that process's pid. */
const LOCK_FILE = "vigil.lock";

export interface DataDirLock {
  /** The pid of the process that held the folder before and ended without releasing it (killed, crashed), if one did. */
  abandonedBy: number | undefined;
  release(): void;
}

const holderIn = (path: string): number | undefined => Number.parseInt(readFileSync(path, "utf8"), 10) || undefined;

/**
 * Embedded PGlite may be opened by one process at a time: a second opener fails with a clear message instead of
 * corrupting it. The lock is the operating system's (an open file description lock on Linux, flock on macOS), which
 * ends with the process holding it however it ends, so a start right after a kill -9 or a crash finds the folder free
 * instead of waiting for a lock to go stale. The holder writes its pid into the file and a clean release empties it:
 * a pid found there by the next holder is one that ended without releasing.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const fd = openSync(path, "a+");
  let locked: boolean;
  try {
    locked = tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw new Error(`the data folder ${dataDir} cannot be locked: ${(error as Error).message}`);
  }
  const holder = holderIn(path);
  if (!locked) {
    closeSync(fd);
    throw new Error(`the data folder ${dataDir} is in use by another Vigil process${holder ? ` (pid ${holder})` : ""}`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  return {
    abandonedBy: holder,
    release() {
      ftruncateSync(fd, 0);
      closeSync(fd);
    },
  };
}
