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

describe("the daily aggregates' retention (DAILY_AGGREGATE_RETENTION_DAYS)", () => {
  it("defaults to 400 days, takes 91 (the status page bars' days and one) to 3650, and refuses other values by name", () => {
    expect(loadConfig({}).dailyAggregateRetentionDays).toBe(400);
    expect(loadConfig({ DAILY_AGGREGATE_RETENTION_DAYS: "" }).dailyAggregateRetentionDays).toBe(400);
    expect(loadConfig({ DAILY_AGGREGATE_RETENTION_DAYS: "91" }).dailyAggregateRetentionDays).toBe(91);
    expect(loadConfig({ DAILY_AGGREGATE_RETENTION_DAYS: "3650" }).dailyAggregateRetentionDays).toBe(3650);
    for (const value of ["90", "3651", "1.5", "long"]) expect(() => loadConfig({ DAILY_AGGREGATE_RETENTION_DAYS: value })).toThrow(/DAILY_AGGREGATE_RETENTION_DAYS/);
  });
});
