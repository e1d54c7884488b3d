import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { Redis } from "ioredis";

/** The tests' Redis: VIGIL_TEST_REDIS_URL, or a server of their own on port 6391, started on demand. */
export function redisServerUrl(): string {
  process.env.VIGIL_TEST_REDIS_URL ??= execFileSync("bash", [resolve(__dirname, "../scripts/ensure-redis.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, REDIS_URL: "", VIGIL_REDIS_DIR: "/tmp/vigil-test-redis", VIGIL_REDIS_PORT: "6391" },
  }).trim();
  return process.env.VIGIL_TEST_REDIS_URL;
}

/** A key prefix of its own for one test file, so files never see each other's queues. */
export const testPrefix = () => `vigil-test-${randomBytes(4).toString("hex")}`;

/** Removes every key under a prefix. */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(redisServerUrl());
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
