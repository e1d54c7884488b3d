import { resolve } from "node:path";
import { z } from "zod";
import type { DatabaseTarget } from "@vigil/db";

/** Every environment variable the control plane reads, with its default. */
const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z.preprocess(unsetIfEmpty, z.url().optional()),
  DATA_DIR: z.string().min(1).default(".vigil/data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export interface ControlPlaneConfig {
  port: number;
  host: string;
  /** PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite in DATA_DIR. */
  database: DatabaseTarget;
  dataDir: string;
  logLevel: z.output<typeof envSchema>["LOG_LEVEL"];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`invalid environment: ${problems}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    database: e.DATABASE_URL ? { kind: "postgres", url: e.DATABASE_URL } : { kind: "pglite", dataDir },
    dataDir,
    logLevel: e.LOG_LEVEL,
  };
}

/** The Unix socket the running service answers administration on (embedded database only). */
export const adminSocketPath = (dataDir: string) => resolve(dataDir, "admin.sock");
