import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { postgresServerUrl } from "./postgres";

export interface PgBouncer {
  /** The URL of `database` on the test server, through the pool. */
  url(database: string): string;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((found, failed) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => found(port));
    });
    server.on("error", failed);
  });

/**
 * A PgBouncer in front of the test PostgreSQL server, pooling in transaction mode (a client's
 * statements may each run on another server connection), installed where it is missing. It runs as
 * the `postgres` user: PgBouncer refuses to run as root.
 */
export async function startPgBouncer(): Promise<PgBouncer> {
  const binary = execFileSync("bash", [path.resolve(__dirname, "../scripts/ensure-pgbouncer.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  const server = new URL(postgresServerUrl());
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-pgbouncer-"));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(server.username);
  writeFileSync(path.join(dir, "users.txt"), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432} user=${user} password=${decodeURIComponent(server.password)}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "default_pool_size = 4",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  const child = spawn("setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", binary, path.join(dir, "pgbouncer.ini")], { stdio: "ignore" });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const url = (database: string) => `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ connectionString: url("postgres") });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (child.exitCode !== null || attempt === 50) {
        child.kill();
        const log = (() => {
          try {
            return readFileSync(path.join(dir, "pgbouncer.log"), "utf8");
          } catch {
            return "(no log)";
          }
        })();
        throw new Error(`PgBouncer did not start: ${(error as Error).message}\n${log}`);
      }
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  return {
    url,
    async stop() {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
