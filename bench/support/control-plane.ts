// The control plane in a process of its own as it is deployed (apps/control-plane/dist/main.js, as scripts/start.sh
// runs it: NODE_ENV=production, checks allowed to reach loopback), for the benchmarks that measure the whole system.
import type { DatabaseTarget } from "@vigil/db";
import { startService, type ServiceOptions, type ServiceProcess } from "./service";

export interface ControlPlaneProcess extends ServiceProcess {
  /** The API's port on 127.0.0.1. */
  port: number;
}

/**
 * Starts it on `database` with DATA_DIR `dataDir` (the embedded database's folder; on PostgreSQL, where its key file
 * goes), on a port of its own; `env` adds settings (REDIS_URL, DEFAULT_REGIONS, ...). Resolves once it listens.
 */
export async function startControlPlane(database: DatabaseTarget, dataDir: string, env: NodeJS.ProcessEnv, options: ServiceOptions = {}): Promise<ControlPlaneProcess> {
  const controlPlane = await startService("control-plane", "control plane listening", {
    NODE_ENV: "production",
    ALLOW_PRIVATE_TARGETS: "true",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: database.kind === "postgres" ? database.url : "",
    ...env,
  }, options);
  return { ...controlPlane, port: controlPlane.ready.port as number };
}
