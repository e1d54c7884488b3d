// A redis-server of the benchmark's own (scripts/ensure-redis.sh on a free port, its files in a temporary folder),
// for a benchmark that counts Redis's CPU and memory: the tests' Redis on port 6391 serves other work too.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./doc";
import { isRunning } from "./machine";
import { freePort } from "./ports";
import { sleep } from "./run";

export interface RedisServer {
  url: string;
  pid: number;
  /** Stops it (SIGTERM, as scripts/start.sh does) and removes its files. */
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-redis-"));
  const port = await freePort();
  const [url, pid] = execFileSync("bash", [path.join(ROOT, "scripts/ensure-redis.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, REDIS_URL: "", VIGIL_REDIS_DIR: dir, VIGIL_REDIS_PORT: String(port), VIGIL_REDIS_REPORT_START: "1" },
  })
    .trim()
    .split("\n");
  if (pid === undefined) throw new Error(`a Redis already answered on port ${port}: it is not the benchmark's own`);
  return {
    url: url!,
    pid: Number(pid),
    async stop() {
      process.kill(Number(pid), "SIGTERM");
      while (isRunning(Number(pid))) await sleep(100);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
