import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./ports";

/**
 * A redis-server of the test's own on a loopback port, so the test may flush,
 * stop and replace it without touching the Redis other tests share.
 * `persistent`: append-only file in a folder of its own, so a restart keeps the data.
 */
export class RedisProcess {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), "vigil-test-redis-"));

  private constructor(
    readonly port: number,
    private readonly persistent: boolean,
  ) {}

  static async start({ persistent = false } = {}): Promise<RedisProcess> {
    const server = new RedisProcess(await freePort(), persistent);
    await server.resume();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again): a new process, with a new run_id, on the same port. */
  async resume(): Promise<void> {
    const persistence = this.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
    this.child = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(this.port), "--save", "", "--dir", this.dir, ...persistence], {
      stdio: "ignore",
    });
    // Commands wait until the server answers (and has loaded its data: ready).
    const probe = new Redis(this.url, { retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on("error", () => {});
    try {
      await probe.ping();
    } finally {
      probe.disconnect();
    }
  }

  /** Stops the server at once (SIGKILL: no final save), as a crash or a lost machine would. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
