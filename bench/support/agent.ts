// The real agent in a process of its own (apps/agent/dist/main.js, as `npm start` runs it), for the benchmarks
// that measure it (bench/fidelity.ts, bench/outage-storm.ts).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "./doc";

/** One JSON log line of the agent. */
export interface LogEntry {
  msg: string;
  [field: string]: unknown;
}

export interface AgentProcess {
  child: ChildProcess;
  healthPort: number;
  /** Its log lines so far. */
  logs(): LogEntry[];
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts it with `env` added to the benchmark's environment, on loopback targets (the SSRF guard allows them),
 * and resolves once it logs "agent started". `wrapper` is a command it runs under (e.g. `nice -n 5`), `nodeArgs`
 * node's flags.
 */
export function startAgent(env: NodeJS.ProcessEnv, { wrapper = [], nodeArgs = [] }: { wrapper?: string[]; nodeArgs?: string[] } = {}): Promise<AgentProcess> {
  const command = [...wrapper, process.execPath, ...nodeArgs, path.join(ROOT, "apps/agent/dist/main.js")];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: "", ALLOW_PRIVATE_TARGETS: "true", HEALTH_PORT: "0", HEALTH_HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
  });
  const logs: LogEntry[] = [];
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`agent exited with ${code}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const entry = JSON.parse(line) as LogEntry;
      logs.push(entry);
      if (entry.msg !== "agent started") return;
      resolve({
        child,
        healthPort: entry.healthPort as number,
        logs: () => logs,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}
