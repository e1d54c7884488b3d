// A built Vigil service (apps/*/dist/main.js) in a process of its own, as `npm start` runs it: its JSON log lines
// read from its stdout, up to the one that says it is ready. For the benchmarks that measure the processes as
// deployed (bench/support/agent.ts, bench/support/control-plane.ts).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "./doc";

/** One JSON log line of a service. */
export interface LogEntry {
  msg: string;
  [field: string]: unknown;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** The log line that said it was ready. */
  ready: LogEntry;
  /** Its log lines so far. */
  logs(): LogEntry[];
  /** Sends SIGTERM and waits for the exit (stopChild). */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** A command it runs under (e.g. `nice -n 5`). */
  wrapper?: string[];
  /** node's flags. */
  nodeArgs?: string[];
}

/** Sends SIGTERM unless it has ended, and waits for the exit; SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts `apps/<app>/dist/main.js` with `env` added to the benchmark's environment (NODE_OPTIONS cleared) and
 * resolves once it logs `readyMessage`; rejects if it exits before.
 */
export function startService(app: string, readyMessage: string, env: NodeJS.ProcessEnv, { wrapper = [], nodeArgs = [] }: ServiceOptions = {}): Promise<ServiceProcess> {
  const command = [...wrapper, process.execPath, ...nodeArgs, path.join(ROOT, "apps", app, "dist/main.js")];
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_OPTIONS: "", ...env } });
  const logs: LogEntry[] = [];
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${app} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const entry = JSON.parse(line) as LogEntry;
      logs.push(entry);
      if (entry.msg !== readyMessage) return;
      resolve({
        child,
        ready: entry,
        logs: () => logs,
        stop: () => stopChild(child),
      });
    });
  });
}
