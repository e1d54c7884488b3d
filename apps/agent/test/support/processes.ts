import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { resolve } from "node:path";

const mainJs = resolve(__dirname, "../../dist/main.js");

/** One JSON log line of the agent. */
export interface LogEntry {
  msg: string;
  [field: string]: unknown;
}

export interface AgentProcess {
  child: ChildProcessWithoutNullStreams;
  healthPort: number;
  logs(): LogEntry[];
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function spawnAgent(env: NodeJS.ProcessEnv) {
  // Jest's NODE_OPTIONS (VM modules) are not for the agent.
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: "",
    HEALTH_PORT: "0",
    HEALTH_HOST: "127.0.0.1",
    // Every target and collector of these tests is on loopback, which the SSRF guard refuses by default.
    ALLOW_PRIVATE_TARGETS: "true",
    ...env,
  };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  const child = spawn(process.execPath, [mainJs], { env: merged });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const logs = () =>
    out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogEntry);
  return { child, exited, logs, stdout: () => out, stderr: () => err };
}

/**
 * Starts the built agent (`node dist/main.js`) and waits until it logs `until`
 * ("agent started": connected and taking jobs). Unset a variable with `undefined`.
 */
export function startAgent(
  env: NodeJS.ProcessEnv,
  { until = "agent started", timeoutMs = 15_000 }: { until?: string; timeoutMs?: number } = {},
): Promise<AgentProcess> {
  const agent = spawnAgent(env);
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      agent.child.kill("SIGKILL");
      reject(new Error(`agent did not start in ${timeoutMs} ms: ${agent.stdout()}${agent.stderr()}`));
    }, timeoutMs);
    const onData = () => {
      const started = agent.logs().find((entry) => entry.msg === until);
      if (!started) return;
      clearTimeout(timer);
      agent.child.stdout.off("data", onData);
      resolvePromise({
        child: agent.child,
        healthPort: started.healthPort as number,
        logs: agent.logs,
        stderr: agent.stderr,
        exited: agent.exited,
        stop: (signal = "SIGTERM") => {
          if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill(signal);
          return agent.exited;
        },
      });
    };
    agent.child.stdout.on("data", onData);
    void agent.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited with ${code}: ${agent.stderr()}`));
    });
  });
}

/** Runs the agent until it exits by itself (e.g. refusing its configuration). */
export async function runAgentToExit(env: NodeJS.ProcessEnv, timeoutMs = 15_000) {
  const agent = spawnAgent(env);
  const timer = setTimeout(() => agent.child.kill("SIGKILL"), timeoutMs);
  const code = await agent.exited;
  clearTimeout(timer);
  return { code, stdout: agent.stdout(), stderr: agent.stderr() };
}
