import { Redis } from "ioredis";
import { ensureServer } from "./scripts";

/** VIGIL_TEST_REDIS_URL, or a Redis of the tests' and benchmarks' own on port 6391, started on demand. */
export function redisServerUrl(): string {
  process.env.VIGIL_TEST_REDIS_URL ??= ensureServer("ensure-redis.sh", {
    ...process.env,
    REDIS_URL: "",
    VIGIL_REDIS_DIR: "/tmp/vigil-test-redis",
    VIGIL_REDIS_PORT: "6391",
  });
  return process.env.VIGIL_TEST_REDIS_URL;
}

/** KEYS then DEL inside one script: Redis runs a script without interleaving other clients' commands. */
const DELETE_PREFIX = `
local keys = redis.call("KEYS", ARGV[1])
for i = 1, #keys, 5000 do redis.call("DEL", unpack(keys, i, math.min(i + 4999, #keys))) end
return #keys`;

/**
 * Removes every key under a prefix in one step, as FLUSHALL would: a control
 * plane that notices the loss and rebuilds must not find half of its keys
 * gone (a scheduler's job left without its scheduler is a second job once the
 * scheduler is written again).
 */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(redisServerUrl());
  try {
    await redis.eval(DELETE_PREFIX, 0, `${prefix}:*`);
  } finally {
    redis.disconnect();
  }
}
