import { Code } from "@connectrpc/connect";
import { createLogger } from "@vigil/logging";
import { Administration } from "../src/admin/operations";
import { hashApiKey } from "../src/auth/api-keys";
import { announcingThroughRedis } from "../src/auth/revocation-relay";
import { VERIFIED_COPY_REFRESH_MS, VERIFIED_COPY_TTL_MS } from "../src/auth/verified-copies";
import { VerifiedKeys } from "../src/auth/verified-keys";
import type { PrismaClient } from "@vigil/db";
import { BACKENDS, openTestDatabase, startTestApi, type Replica, type TestApi } from "./support/api";
import { codeOf } from "./support/codes";
import { testPipelineConfig } from "./support/control-plane";
import { eventually } from "../../../test/eventually";

/** Waits until `count` lookups, the background ones included, have been answered. */
async function eventuallyLookedUp(seen: { lookups: number; answered: number }, count: number): Promise<void> {
  await eventually(() => seen.answered === count);
  expect(seen.lookups).toBe(count);
}

describe.each(BACKENDS)("verified API keys on %s", (backend) => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let admin: Administration;
  let now: number;
  let keys: VerifiedKeys;
  let workspaces = 0;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    admin = new Administration(db.prisma);
  });
  afterAll(() => db.dispose());
  beforeEach(() => {
    now = 1_000_000;
    keys = new VerifiedKeys(db.prisma, { ttlMs: VERIFIED_COPY_TTL_MS, now: () => now });
  });

  const newKey = async () => {
    const slug = `cache-${++workspaces}`;
    const workspace = await admin.createWorkspace({ name: slug, slug });
    const { apiKey, key } = await admin.createApiKey({ workspaceSlug: slug, scope: "read" });
    return { workspace, id: apiKey.id, key };
  };

  it("accepts a key created after the same key was refused (misses are not kept)", async () => {
    const { workspace } = await newKey();
    const chosen = `vgl_created-after-a-miss-${workspaces}`;
    expect(await keys.actorFor(chosen)).toBeNull();
    await db.prisma.apiKey.create({ data: { workspaceId: workspace.id, prefix: chosen.slice(0, 12), secretHash: hashApiKey(chosen), scopes: ["read"] } });
    expect(await keys.actorFor(chosen)).toEqual(expect.objectContaining({ scopes: ["read"], workspace: expect.objectContaining({ id: workspace.id }) }));
  });

  it("refuses a key from its expiry on, though its copy was verified just before", async () => {
    const { id, key } = await newKey();
    await db.prisma.apiKey.update({ where: { id }, data: { expiresAt: new Date(now + 1_000) } });
    expect(await keys.actorFor(key)).not.toBeNull();
    now += 1_000;
    expect(await keys.actorFor(key)).toBeNull();
  });

  it("writes a key's last use once a minute at most, whichever control plane sees it", async () => {
    const { id, key } = await newKey();
    const lastUsed = async () => (await db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await keys.actorFor(key);
    const first = new Date(now);
    expect(await lastUsed()).toEqual(first);
    const other = new VerifiedKeys(db.prisma, { ttlMs: VERIFIED_COPY_TTL_MS, now: () => now });
    for (const step of [1, VERIFIED_COPY_TTL_MS, 30_000]) {
      now += step;
      await keys.actorFor(key);
      await other.actorFor(key);
      expect(await lastUsed()).toEqual(first);
    }
    now = first.getTime() + 60_000;
    await other.actorFor(key);
    expect(await lastUsed()).toEqual(new Date(now));
  });

  it("refuses a key deleted from the database once its cached copy expires", async () => {
    const { id, key } = await newKey();
    expect(await keys.actorFor(key)).not.toBeNull();
    await db.prisma.apiKey.delete({ where: { id } });
    now += VERIFIED_COPY_TTL_MS;
    expect(await keys.actorFor(key)).toBeNull();
  });

  it("refuses the keys of a deleted workspace once their cached copies expire", async () => {
    const { workspace, key } = await newKey();
    expect(await keys.actorFor(key)).not.toBeNull();
    await db.prisma.workspace.delete({ where: { id: workspace.id } });
    now += VERIFIED_COPY_TTL_MS;
    expect(await keys.actorFor(key)).toBeNull();
  });

  /** The database as VerifiedKeys sees it, counting its lookups; each lookup's answer, once read, waits for `release` if one is given. */
  const counted = (release?: Promise<void>) => {
    const seen = { lookups: 0, answered: 0 };
    const prisma = {
      apiKey: {
        findUnique: async (args: Parameters<PrismaClient["apiKey"]["findUnique"]>[0]) => {
          seen.lookups++;
          const row = await db.prisma.apiKey.findUnique(args);
          await release;
          seen.answered++;
          return row;
        },
        updateMany: (args: Parameters<PrismaClient["apiKey"]["updateMany"]>[0]) => db.prisma.apiKey.updateMany(args),
      },
    } as unknown as PrismaClient;
    return { seen, keys: new VerifiedKeys(prisma, { now: () => now }) };
  };

  it("looks a key up once for all the calls that need it while it is being looked up", async () => {
    const { key } = await newKey();
    const { seen, keys } = counted();
    const actors = await Promise.all(Array.from({ length: 20 }, () => keys.actorFor(key)));
    expect(new Set(actors.map((actor) => actor?.keyId)).size).toBe(1);
    expect(actors[0]).not.toBeNull();
    expect(seen.lookups).toBe(1);
  });

  it("looks a key in use up again before its copy expires, so that no call waits for it at expiry", async () => {
    const { key } = await newKey();
    const { seen, keys } = counted();
    await keys.actorFor(key);
    now += VERIFIED_COPY_TTL_MS - VERIFIED_COPY_REFRESH_MS / 2;
    // Answered from the copy, and looked up again behind the call.
    expect(await keys.actorFor(key)).not.toBeNull();
    await eventuallyLookedUp(seen, 2);
    now += VERIFIED_COPY_REFRESH_MS;
    // Past the first copy's expiry: the second answers, with no lookup.
    expect(await keys.actorFor(key)).not.toBeNull();
    expect(seen.lookups).toBe(2);
  });

  it("refuses a key deleted from the database from the moment a lookup ahead of expiry finds it gone", async () => {
    const { id, key } = await newKey();
    const { seen, keys } = counted();
    await keys.actorFor(key);
    await db.prisma.apiKey.delete({ where: { id } });
    now += VERIFIED_COPY_TTL_MS - VERIFIED_COPY_REFRESH_MS / 2;
    expect(await keys.actorFor(key)).not.toBeNull();
    await eventuallyLookedUp(seen, 2);
    expect(await keys.actorFor(key)).toBeNull();
  });

  it("never answers a call made after a forget from a lookup that was under way before it", async () => {
    const { id, key } = await newKey();
    let release!: () => void;
    const { keys } = counted(new Promise<void>((resolve) => (release = resolve)));
    // Reads the key while it is valid, then waits.
    const before = keys.actorFor(key);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await db.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    keys.forget(id);
    const after = keys.actorFor(key);
    release();
    await before;
    expect(await after).toBeNull();
    expect(await keys.actorFor(key)).toBeNull();
  });

  it("refuses a forgotten key at once, even when a lookup of it was under way", async () => {
    const { id, key } = await newKey();
    const lookup = keys.actorFor(key);
    await db.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    keys.forget(id);
    // Whatever the racing lookup read, it must not have put the key back.
    await lookup;
    expect(await keys.actorFor(key)).toBeNull();
  });
});

describe.each(BACKENDS)("API key revocation across control planes on %s (real Redis)", (backend) => {
  let api: TestApi;
  let replica: Replica;
  let replicaUrl: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    // A second control plane of the same deployment: the same database, the same Redis keys.
    replica = await api.startReplica();
    replicaUrl = replica.baseUrl;
  });
  afterAll(async () => {
    await replica.close();
    await api.close();
  });

  const whoami = (baseUrl: string, key: string) => fetch(`${baseUrl}/v1/whoami`, { headers: { "x-service-key": key } });
  const listOnReplica = (key: string) => whoami(replicaUrl, key).then((res) => res.status);

  it("refuses a key on the other control plane on the very next call after DELETE /v1/api-key answers", async () => {
    const { write, read } = await api.workspace();
    // Both control planes have verified the key (and keep it).
    expect(await listOnReplica(read.key)).toBe(200);
    expect(await codeOf(api.client(read.key).listMonitors({}))).toBe("ok");

    const revoked = await api.fetch(`/v1/api-key/${read.id}`, { method: "DELETE", headers: { "x-service-key": write.key } });
    expect(revoked.status).toBe(200);
    expect(await listOnReplica(read.key)).toBe(401);
    expect(await codeOf(api.client(read.key).listMonitors({}))).toBe(Code.Unauthenticated);
  });

  it("refuses a key on the other control plane on the very next call after the admin command revokes it", async () => {
    const { read } = await api.workspace();
    expect(await listOnReplica(read.key)).toBe(200);
    await api.admin.revokeApiKey(read.id);
    expect(await listOnReplica(read.key)).toBe(401);
  });

  it("refuses a key on every control plane after the offline admin command (no control plane of its own) revokes it", async () => {
    const { read } = await api.workspace();
    expect(await listOnReplica(read.key)).toBe(200);
    expect(await codeOf(api.client(read.key).listMonitors({}))).toBe("ok");
    const revocations = announcingThroughRedis(testPipelineConfig(api.redisPrefix).redis, api.redisPrefix, createLogger("silent", "test"));
    try {
      await new Administration(api.db.prisma, revocations).revokeApiKey(read.id);
    } finally {
      revocations.close();
    }
    expect(await listOnReplica(read.key)).toBe(401);
    expect(await codeOf(api.client(read.key).listMonitors({}))).toBe(Code.Unauthenticated);
  });

  it("refuses a key revoked through the other control plane here too", async () => {
    const { write } = await api.workspace();
    expect(await codeOf(api.client(write.key).listMonitors({}))).toBe("ok");
    const revoked = await fetch(`${replicaUrl}/v1/api-key/${write.id}`, { method: "DELETE", headers: { "x-service-key": write.key } });
    expect(revoked.status).toBe(200);
    expect(await codeOf(api.client(write.key).listMonitors({}))).toBe(Code.Unauthenticated);
  });
});
