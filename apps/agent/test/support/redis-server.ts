import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { closedPort } from "./targets";

/** A private redis-server that a test may stop and start again; its data (append-only file) stays in a temporary folder. */
export interface RedisServer {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

export async function privateRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "vigil-agent-redis-"));
  const port = await closedPort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--dir", dir, "--appendonly", "yes", "--save", ""], {
      stdio: "ignore",
    });
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {});
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    probe.disconnect();
  };
  // SIGTERM: Redis flushes its append-only file and exits, as on a planned restart.
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGTERM");
    });
  };

  await start();
  return {
    url,
    start,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
