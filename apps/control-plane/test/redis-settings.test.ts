import { loadConfig as loadAgentConfig } from "../../agent/src/config";
import { loadConfig } from "../src/config";

/** The Redis settings both apps share: one Redis by URL, Sentinel, or Cluster (see deploy/README.md). */
describe.each([
  ["control plane", (env: NodeJS.ProcessEnv) => loadConfig(env)],
  ["agent", (env: NodeJS.ProcessEnv) => loadAgentConfig({ REGION: "hostA-ams", ...env })],
])("the %s's Redis settings", (_app, load) => {
  it("default to one Redis by URL under the prefix vigil", () => {
    expect(load({})).toMatchObject({ redis: { kind: "standalone", url: "redis://127.0.0.1:6390" }, redisPrefix: "vigil" });
  });

  it("find the master through sentinels, on their default port where none is given", () => {
    const config = load({ REDIS_SENTINELS: "10.0.0.1:26380, sentinel-b", REDIS_SENTINEL_NAME: "vigil", REDIS_PASSWORD: "p", REDIS_SENTINEL_PASSWORD: "s" });
    expect(config.redis).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "10.0.0.1", port: 26380 },
        { host: "sentinel-b", port: 26379 },
      ],
      masterName: "vigil",
      password: "p",
      sentinelPassword: "s",
    });
  });

  it("use a hash-tagged prefix under Cluster, so every key lands in one slot", () => {
    const config = load({ REDIS_CLUSTER_NODES: "[fd00::1]:7000,redis-b:7001" });
    expect(config).toMatchObject({
      redis: { kind: "cluster", nodes: [{ host: "fd00::1", port: 7000 }, { host: "redis-b", port: 7001 }] },
      redisPrefix: "{vigil}",
    });
    expect(load({ REDIS_CLUSTER_NODES: "redis-a:7000", REDIS_PREFIX: "{acme}-vigil" }).redisPrefix).toBe("{acme}-vigil");
  });

  it.each([
    [{ REDIS_CLUSTER_NODES: "redis-a:7000", REDIS_PREFIX: "vigil" }, "REDIS_PREFIX: must contain a hash tag such as {vigil} with REDIS_CLUSTER_NODES"],
    [{ REDIS_CLUSTER_NODES: "redis-a:7000", REDIS_PREFIX: "vigil{}{x}" }, "REDIS_PREFIX: must contain a hash tag"],
    [{ REDIS_SENTINELS: "sentinel-a" }, "REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS"],
    [{ REDIS_SENTINELS: "a:26379", REDIS_SENTINEL_NAME: "m", REDIS_CLUSTER_NODES: "b:7000" }, "REDIS_CLUSTER_NODES: cannot be set together with REDIS_SENTINELS"],
    [{ REDIS_SENTINELS: "a:99999" }, 'REDIS_SENTINELS: "a:99999" is not host:port'],
    [{ REDIS_URL: "http://redis:6379" }, "REDIS_URL: must be a redis:// or rediss:// URL"],
  ])("refuse %j, naming the variable", (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
