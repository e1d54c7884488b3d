import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { resolve } from "node:path";
import { redisServerUrl, testPrefix } from "../../../../test/redis";

const dist = resolve(__dirname, "../../dist");

export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  port: number;
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts the built control plane (`node dist/main.js`) and waits until it logs `readyWhen`: by default, until it
 * listens. `port` is 0 when it answers before listening.
 */
export function startService(env: NodeJS.ProcessEnv, readyWhen = "control plane listening"): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [resolve(dist, "main.js")], {
    env: {
      ...process.env,
      NODE_OPTIONS: "",
      PORT: "0",
      HOST: "127.0.0.1",
      REDIS_URL: redisServerUrl(),
      REDIS_PREFIX: testPrefix(),
      // The tests' targets and channels are on loopback, which the SSRF guard refuses by default.
      ALLOW_PRIVATE_TARGETS: "true",
      ...env,
    },
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const entries = out
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; port?: number });
      if (entries.some((entry) => entry.msg === readyWhen)) {
        resolvePromise({
          child,
          port: entries.find((entry) => entry.msg === "control plane listening")?.port ?? 0,
          stdout: () => out,
          stderr: () => err,
          stop: () =>
            new Promise((done) => {
              child.once("exit", (code) => done(code));
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${err}`)));
  });
}

/** Runs a command of the service to completion, e.g. the admin command. */
export function runNode(script: string, args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [resolve(dist, script), ...args], {
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
