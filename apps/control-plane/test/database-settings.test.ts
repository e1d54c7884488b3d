import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_POOL_SIZE } from "@vigil/db";
import { loadConfig } from "../src/config";

/** DATABASE_POOL_SIZE is read and checked with the control plane's other settings. */
describe("DATABASE_POOL_SIZE", () => {
  it("defaults to the database's pool size and takes a whole number of at least 1", () => {
    expect(loadConfig({}).databasePoolSize).toBe(DEFAULT_POOL_SIZE);
    expect(loadConfig({ DATABASE_POOL_SIZE: "" }).databasePoolSize).toBe(DEFAULT_POOL_SIZE);
    expect(loadConfig({ DATABASE_POOL_SIZE: "25" }).databasePoolSize).toBe(25);
  });

  it.each(["0", "-3", "2.5", "ten"])("refuses %s, naming the variable", (value) => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: value })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it("stops the control plane's start-up with a bad value, naming the variable", () => {
    const dir = mkdtempSync(join(tmpdir(), "vigil-pool-"));
    try {
      const run = spawnSync(process.execPath, [resolve(__dirname, "../dist/main.js")], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, DATA_DIR: dir, PORT: "0", HOST: "127.0.0.1", DATABASE_POOL_SIZE: "0" },
      });
      expect(run.status).toBe(1);
      expect(run.stdout + run.stderr).toMatch(/DATABASE_POOL_SIZE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
