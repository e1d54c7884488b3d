import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import type { RedisNode } from "@vigil/queue";
import { eventually } from "../../../../test/eventually";
import { freePort } from "../../../../test/ports";

const run = promisify(execFile);
const HOST = "127.0.0.1";

/** Redis servers a test started on loopback ports, in a folder of their own. */
export interface RedisProcesses {
  close(): Promise<void>;
}

async function ping(port: number): Promise<void> {
  const probe = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
  } finally {
    probe.disconnect();
  }
}

class ProcessGroup implements RedisProcesses {
  private readonly children: ChildProcess[] = [];
  constructor(readonly dir: string) {}

  /** Starts redis-server with `args` (a config file first, for a sentinel) and waits until it answers. */
  async start(port: number, args: string[]): Promise<RedisNode> {
    const child = spawn("redis-server", [...args, "--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", this.dir], {
      stdio: "ignore",
    });
    this.children.push(child);
    await eventually(() => ping(port), 10_000);
    return { host: HOST, port };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGKILL");
          }),
      ),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

const newGroup = async (name: string) => new ProcessGroup(await mkdtemp(join(tmpdir(), `vigil-${name}-`)));

export interface SentinelSetup extends RedisProcesses {
  sentinels: RedisNode[];
  masterName: string;
  /** The current master, as the sentinel reports it. */
  master(): Promise<RedisNode>;
  /** Has the sentinel promote the replica, and waits until it reports the new master. */
  failover(): Promise<RedisNode>;
}

/** A master, one replica and one sentinel (quorum 1) watching them. */
export async function startSentinelSetup(masterName = "vigil"): Promise<SentinelSetup> {
  const group = await newGroup("sentinel");
  try {
    const master = await group.start(await freePort(), []);
    await group.start(await freePort(), ["--replicaof", HOST, String(master.port)]);
    const config = join(group.dir, "sentinel.conf");
    // The sentinel rewrites its file as it learns the setup, so it must be one of its own.
    await writeFile(
      config,
      [
        `sentinel monitor ${masterName} ${HOST} ${master.port} 1`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        "",
      ].join("\n"),
    );
    const sentinel = await group.start(await freePort(), [config, "--sentinel"]);
    const askSentinel = async <T>(command: (client: Redis) => Promise<T>): Promise<T> => {
      const client = new Redis({ ...sentinel, maxRetriesPerRequest: 0 });
      try {
        return await command(client);
      } finally {
        client.disconnect();
      }
    };
    const masterNow = async (): Promise<RedisNode> => {
      const [host, port] = (await askSentinel((c) => c.call("SENTINEL", "get-master-addr-by-name", masterName))) as [string, string];
      return { host, port: Number(port) };
    };
    // The sentinel learns of the replica from the master's INFO, a few seconds after start.
    await eventually(async () => {
      const replicas = (await askSentinel((c) => c.call("SENTINEL", "replicas", masterName))) as unknown[];
      expect(replicas.length).toBe(1);
    }, 20_000);
    return {
      sentinels: [sentinel],
      masterName,
      master: masterNow,
      async failover() {
        const before = await masterNow();
        await askSentinel((c) => c.call("SENTINEL", "failover", masterName));
        return eventually(async () => {
          const after = await masterNow();
          expect(after.port).not.toBe(before.port);
          return after;
        }, 20_000);
      },
      close: () => group.close(),
    };
  } catch (error) {
    await group.close();
    throw error;
  }
}

export interface ClusterSetup extends RedisProcesses {
  nodes: RedisNode[];
  /** The keys under `pattern` on each node (a glob, as SCAN takes it). */
  keysByNode(pattern: string): Promise<string[][]>;
}

/** A Redis Cluster of three masters without replicas, the smallest redis-cli creates. */
export async function startCluster(): Promise<ClusterSetup> {
  const group = await newGroup("cluster");
  try {
    const nodes: RedisNode[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      nodes.push(await group.start(port, ["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`]));
    }
    await run("redis-cli", ["--cluster", "create", ...nodes.map((n) => `${n.host}:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"]);
    const onNode = async <T>(node: RedisNode, command: (client: Redis) => Promise<T>): Promise<T> => {
      const client = new Redis({ ...node, maxRetriesPerRequest: 0 });
      try {
        return await command(client);
      } finally {
        client.disconnect();
      }
    };
    await eventually(
      () => Promise.all(nodes.map(async (node) => expect(await onNode(node, (c) => c.cluster("INFO"))).toContain("cluster_state:ok"))),
      20_000,
    );
    return {
      nodes,
      keysByNode: (pattern) =>
        Promise.all(
          nodes.map((node) =>
            onNode(node, async (client) => {
              const keys: string[] = [];
              let cursor = "0";
              do {
                const [next, batch] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
                keys.push(...batch);
                cursor = next;
              } while (cursor !== "0");
              return keys;
            }),
          ),
        ),
      close: () => group.close(),
    };
  } catch (error) {
    await group.close();
    throw error;
  }
}
