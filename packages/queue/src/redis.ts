import { Cluster, Redis, type RedisOptions } from "ioredis";
import { z } from "zod";
import { DEFAULT_PREFIX } from "./names";

/** A Redis server the apps reach by host and port (a sentinel or a cluster node). */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where the deployment's Redis is: one server by URL, a master found through
 * Sentinel, or a Redis Cluster.
 */
export type RedisTarget =
  | { kind: "standalone"; url: string }
  | { kind: "sentinel"; sentinels: RedisNode[]; masterName: string; password?: string; sentinelPassword?: string }
  | { kind: "cluster"; nodes: RedisNode[]; password?: string };

/** Either kind of connection the apps hold; both take the same commands. */
export type RedisConnection = Redis | Cluster;

const DEFAULT_URL = "redis://127.0.0.1:6390";
const DEFAULT_SENTINEL_PORT = 26379;
const DEFAULT_NODE_PORT = 6379;
/** Under Cluster every key of one installation must hash to one slot: a hash tag in the prefix does it. */
export const DEFAULT_CLUSTER_PREFIX = `{${DEFAULT_PREFIX}}`;
/** Redis Cluster hashes only the part between the first "{" and the next "}", when that part is not empty. */
function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf("{");
  return open >= 0 && prefix.indexOf("}", open + 1) > open + 1;
}

const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);

/** "10.0.0.1:26379, redis-b" -> [{host: "10.0.0.1", port: 26379}, {host: "redis-b", port: defaultPort}] */
const nodeList = (defaultPort: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .transform((value, ctx) => {
        const nodes: RedisNode[] = [];
        for (const entry of value.split(",").map((item) => item.trim()).filter(Boolean)) {
          const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(entry);
          const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
          if (!match || port < 1 || port > 65_535) {
            ctx.addIssue({ code: "custom", message: `"${entry}" is not host:port` });
            continue;
          }
          nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ""), port });
        }
        if (nodes.length === 0) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of host:port" });
        return nodes;
      })
      .optional(),
  );
const optionalSecret = z.preprocess(unsetIfEmpty, z.string().optional());

/**
 * The Redis settings the control plane and the agents share, to spread into
 * their environment schemas; refine the whole schema with refineRedisEnv.
 */
export const redisEnvShape = {
  REDIS_URL: z.preprocess(unsetIfEmpty, z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" }).default(DEFAULT_URL)),
  REDIS_PREFIX: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
  REDIS_SENTINELS: nodeList(DEFAULT_SENTINEL_PORT),
  REDIS_SENTINEL_NAME: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
  REDIS_CLUSTER_NODES: nodeList(DEFAULT_NODE_PORT),
  REDIS_PASSWORD: optionalSecret,
  REDIS_SENTINEL_PASSWORD: optionalSecret,
};

type RedisEnv = z.output<z.ZodObject<typeof redisEnvShape>>;

/** The rules that tie the Redis settings together, reported on the variable to change. */
export function refineRedisEnv(e: RedisEnv, ctx: z.RefinementCtx): void {
  const issue = (variable: keyof RedisEnv, message: string) => ctx.addIssue({ code: "custom", path: [variable], message });
  if (e.REDIS_SENTINELS && e.REDIS_CLUSTER_NODES) issue("REDIS_CLUSTER_NODES", "cannot be set together with REDIS_SENTINELS");
  if (e.REDIS_SENTINELS && !e.REDIS_SENTINEL_NAME) issue("REDIS_SENTINEL_NAME", "is required with REDIS_SENTINELS: the name of the master the sentinels monitor");
  if (e.REDIS_CLUSTER_NODES && e.REDIS_PREFIX !== undefined && !hasHashTag(e.REDIS_PREFIX)) {
    issue("REDIS_PREFIX", `must contain a hash tag such as ${DEFAULT_CLUSTER_PREFIX} with REDIS_CLUSTER_NODES, so every key lands in one slot`);
  }
}

/** The connection target and key prefix the settings describe. */
export function redisSettingsFromEnv(e: RedisEnv): { target: RedisTarget; prefix: string } {
  if (e.REDIS_CLUSTER_NODES) {
    return {
      target: { kind: "cluster", nodes: e.REDIS_CLUSTER_NODES, password: e.REDIS_PASSWORD },
      prefix: e.REDIS_PREFIX ?? DEFAULT_CLUSTER_PREFIX,
    };
  }
  const prefix = e.REDIS_PREFIX ?? DEFAULT_PREFIX;
  if (e.REDIS_SENTINELS) {
    const target: RedisTarget = {
      kind: "sentinel",
      sentinels: e.REDIS_SENTINELS,
      masterName: e.REDIS_SENTINEL_NAME ?? "",
      password: e.REDIS_PASSWORD,
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
    };
    return { target, prefix };
  }
  return { target: { kind: "standalone", url: e.REDIS_URL }, prefix };
}

/**
 * A Redis connection for BullMQ, the results stream and the control planes'
 * shared state. Commands wait for a lost connection (or a failover) to come
 * back instead of failing, so an outage delays results rather than losing
 * them. A string is a standalone server's URL.
 */
export function connectRedis(target: RedisTarget | string, name: string): RedisConnection {
  const options: RedisOptions = { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false };
  if (typeof target === "string") return new Redis(target, options);
  switch (target.kind) {
    case "standalone":
      return new Redis(target.url, options);
    case "sentinel":
      return new Redis({
        ...options,
        sentinels: target.sentinels,
        name: target.masterName,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
      });
    case "cluster":
      return new Cluster(target.nodes, { redisOptions: { ...options, password: target.password } });
  }
}
