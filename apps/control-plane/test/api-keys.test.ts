import { toJson } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { ApiKeySchema, ApiKeyService } from "@vigil/proto/account";
import { BACKENDS, jsonOf, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { codeOf, rejection } from "./support/codes";
import { sessionClient, signedInPerson, type Person } from "./support/people";

type Keys = Client<typeof ApiKeyService>;

describe.each(BACKENDS)("ApiKeyService on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let admin: Person;
  let owner: Person;
  let otherKeyId: string;

  const asPerson = (person: Person): Keys => sessionClient(ApiKeyService, api.baseUrl, person.token);
  const whoami = (key: string) => api.fetch("/v1/whoami", { headers: { "x-service-key": key } });
  const written = async () => ({
    // A refused call may still count as the key's use: lastUsedAt is left out.
    keys: await api.db.prisma.apiKey.findMany({ orderBy: { id: "asc" }, omit: { lastUsedAt: true } }),
    audit: await api.db.prisma.auditEntry.count(),
  });
  const inAnHour = () => timestampFromDate(new Date(Date.now() + 3_600_000));

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
    owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    otherKeyId = (await api.workspace()).write.id;
  });
  afterAll(() => api.close());

  it("lets an admin create a key, answered once with its secret, that works at once for its scope", async () => {
    const created = await asPerson(admin).createApiKey({ name: "deploys", scopes: ["write"], expiresAt: inAnHour() });
    expect(created.key).toMatch(/^vgl_/);
    expect(created.apiKey).toEqual(
      expect.objectContaining({ name: "deploys", scopes: ["write"], prefix: created.key.slice(0, 12), createdBy: expect.objectContaining({ userId: admin.userId, email: admin.email }) }),
    );
    const res = await whoami(created.key);
    expect(res.status).toBe(200);
    expect((await jsonOf(res)).actor).toEqual({ type: "apiKey", keyId: created.apiKey!.id, scopes: ["write"] });
    const nobody = "00000000-0000-0000-0000-000000000000";
    expect(await codeOf(api.client(created.key).deleteMonitor({ id: nobody }))).toBe(Code.NotFound);

    const read = await asPerson(owner).createApiKey({ name: "dashboards", scopes: ["read"] });
    expect(read.apiKey!.expiresAt).toBeUndefined();
    expect(await codeOf(api.client(read.key).listMonitors({}))).toBe("ok");
    expect(await codeOf(api.client(read.key).deleteMonitor({ id: nobody }))).toBe(Code.PermissionDenied);
  });

  it("lists the workspace's keys with who made them and their last use, never a secret", async () => {
    const created = await asPerson(admin).createApiKey({ name: "listed", scopes: ["read"] });
    expect((await whoami(created.key)).status).toBe(200);
    const { apiKeys } = await asPerson(owner).listApiKeys({});
    expect(apiKeys.map((k) => k.id)).not.toContain(otherKeyId);
    expect(apiKeys.map((k) => k.id)).toEqual(expect.arrayContaining([ws.write.id, ws.read.id, ws.legacy.id, created.apiKey!.id]));
    const listed = apiKeys.find((k) => k.id === created.apiKey!.id)!;
    expect(listed).toEqual(expect.objectContaining({ name: "listed", prefix: created.apiKey!.prefix, scopes: ["read"], createdBy: expect.objectContaining({ email: admin.email }) }));
    expect(listed.lastUsedAt).toBeDefined();
    expect(apiKeys.find((k) => k.id === ws.write.id)!.createdBy).toBeUndefined();
    expect(JSON.stringify(apiKeys.map((k) => toJson(ApiKeySchema, k)))).not.toContain(created.key.slice(12));
  });

  it("writes a key's last use once, not on every call", async () => {
    const created = await asPerson(admin).createApiKey({ name: "busy", scopes: ["read"] });
    const lastUsed = async () => (await asPerson(admin).listApiKeys({})).apiKeys.find((k) => k.id === created.apiKey!.id)!.lastUsedAt;
    expect(await lastUsed()).toBeUndefined();
    expect((await whoami(created.key)).status).toBe(200);
    const first = await lastUsed();
    expect(first).toBeDefined();
    for (let i = 0; i < 3; i++) expect((await whoami(created.key)).status).toBe(200);
    expect(await lastUsed()).toEqual(first);
  });

  it("refuses an expired key like a revoked one, though it was verified just before", async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const created = await asPerson(admin).createApiKey({ name: "short-lived", scopes: ["write"], expiresAt: timestampFromDate(expiresAt) });
    expect(timestampDate(created.apiKey!.expiresAt!)).toEqual(expiresAt);
    expect((await whoami(created.key)).status).toBe(200);
    while (Date.now() <= expiresAt.getTime()) await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 1));
    const res = await whoami(created.key);
    expect(res.status).toBe(401);
    expect(await codeOf(api.client(created.key).listMonitors({}))).toBe(Code.Unauthenticated);
  });

  it("refuses bad requests naming the field and the rule, and writes nothing", async () => {
    const bad: [{ name: string; scopes: string[]; expiresAt?: Timestamp }, string][] = [
      [{ name: "past", scopes: ["read"], expiresAt: timestampFromDate(new Date(Date.now() - 1_000)) }, "expires_at: must be in the future"],
      [{ name: "none", scopes: [] }, "scopes: must be exactly one of read, write"],
      [{ name: "both", scopes: ["read", "write"] }, "scopes: must be exactly one of read, write"],
      [{ name: "admin", scopes: ["admin"] }, "scopes: must be exactly one of read, write"],
      [{ name: "two\nlines", scopes: ["read"] }, "name: must not contain control characters"],
      [{ name: "x".repeat(257), scopes: ["read"] }, "name: must be at most 256 characters"],
    ];
    const before = await written();
    for (const [request, message] of bad) {
      const error = await rejection(asPerson(admin).createApiKey(request));
      expect([request.name, error.code, error.rawMessage]).toEqual([request.name, Code.InvalidArgument, expect.stringContaining(message)]);
    }
    expect(await written()).toEqual(before);
  });

  it("revokes through the same path as DELETE /v1/api-key: every control plane refuses the key at once", async () => {
    const replica = await api.startReplica();
    try {
      const created = await asPerson(admin).createApiKey({ name: "to revoke", scopes: ["read"] });
      const onReplica = () => fetch(`${replica.baseUrl}/v1/whoami`, { headers: { "x-service-key": created.key } });
      expect((await onReplica()).status).toBe(200);
      const { apiKey } = await asPerson(owner).revokeApiKey({ id: created.apiKey!.id });
      expect(apiKey!.revokedAt).toBeDefined();
      expect((await onReplica()).status).toBe(401);
      expect((await whoami(created.key)).status).toBe(401);
      const again = await asPerson(admin).revokeApiKey({ id: created.apiKey!.id });
      expect(again.apiKey!.revokedAt).toEqual(apiKey!.revokedAt);
      expect(await codeOf(asPerson(admin).revokeApiKey({ id: otherKeyId }))).toBe(Code.NotFound);
    } finally {
      await replica.close();
    }
  });

  it("audits creation and revocation naming the person, without the secret", async () => {
    const created = await asPerson(admin).createApiKey({ name: "audited", scopes: ["read"], expiresAt: inAnHour() });
    await asPerson(owner).revokeApiKey({ id: created.apiKey!.id });
    const entries = await api.db.prisma.auditEntry.findMany({ where: { targetId: created.apiKey!.id }, orderBy: { at: "asc" } });
    expect(entries).toEqual([
      expect.objectContaining({ actorType: "user", userId: admin.userId, userEmail: admin.email, method: "account.v1.ApiKeyService/CreateApiKey", targetKind: "ApiKey" }),
      expect.objectContaining({ actorType: "user", userId: owner.userId, userEmail: owner.email, method: "account.v1.ApiKeyService/RevokeApiKey", targetKind: "ApiKey" }),
    ]);
    expect(entries[0]!.changes).toEqual(expect.objectContaining({ name: "audited", scopes: ["read"] }));
    expect(JSON.stringify(entries)).not.toContain(created.key);
    expect(JSON.stringify(entries)).not.toContain(created.key.slice(12));
  });
});
