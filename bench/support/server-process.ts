// The API server under test in a process of its own (bench/api-server.ts, the built control plane),
// so that the load generator never shares its event loop (or, for PGlite, the database's thread)
// with it. Shared by bench/api.ts and bench/status-page.ts.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { DatabaseTarget } from "@vigil/db";
import { DIST_TSCONFIG } from "./built";
import { ROOT } from "./doc";

export interface ServerProcess {
  child: ChildProcess;
  port: number;
}

/**
 * Starts it on `target`; `env` adds settings (BENCH_REDIS_PREFIX, ...). BENCH_CPU_PROF=<dir> leaves a V8 CPU profile of it;
 * BENCH_SERVER_NODE_ARGS adds node flags (space-separated, e.g. `--trace-gc` or V8's GC settings to try).
 */
export async function startServer(target: DatabaseTarget, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...profile, ...nodeArgs, "--import", "tsx", path.join(ROOT, "bench/api-server.ts")], {
    cwd: ROOT,
    // NODE_ENV as the image sets it: React renders the status page with its production build.
    env: { ...process.env, NODE_ENV: "production", ...env, BENCH_DATABASE: JSON.stringify(target), TSX_TSCONFIG_PATH: DIST_TSCONFIG },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve(message.port));
    child.once("exit", (code) => reject(new Error(`the server process exited (${code}) before listening`)));
  });
  return { child, port };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Disconnecting asks it to close the listener and the database.
  child.disconnect();
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
