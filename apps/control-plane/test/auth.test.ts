import { Code } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import { codeOf } from "./support/codes";
import { BACKENDS, jsonOf, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;

describe.each(BACKENDS)("authentication and scopes on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let monitorIds: { http: string; tcp: string; dns: string };

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    const client = api.client(ws.write.key);
    monitorIds = {
      http: (await client.createHTTPMonitor({ monitor: { name: "h", url: "https://example.com", periodicity } })).monitor!.id,
      tcp: (await client.createTCPMonitor({ monitor: { name: "t", uri: "example.com:443", periodicity } })).monitor!.id,
      dns: (await client.createDNSMonitor({ monitor: { name: "d", uri: "example.com", periodicity } })).monitor!.id,
    };
  });
  afterAll(() => api.close());

  const mutations = (key: string) => {
    const c = api.client(key);
    return {
      CreateHTTPMonitor: () => c.createHTTPMonitor({ monitor: { name: "x", url: "https://example.com", periodicity } }),
      CreateTCPMonitor: () => c.createTCPMonitor({ monitor: { name: "x", uri: "example.com:1", periodicity } }),
      CreateDNSMonitor: () => c.createDNSMonitor({ monitor: { name: "x", uri: "example.com", periodicity } }),
      UpdateHTTPMonitor: () => c.updateHTTPMonitor({ id: monitorIds.http, monitor: { name: "renamed" } }),
      UpdateTCPMonitor: () => c.updateTCPMonitor({ id: monitorIds.tcp, monitor: { name: "renamed" } }),
      UpdateDNSMonitor: () => c.updateDNSMonitor({ id: monitorIds.dns, monitor: { name: "renamed" } }),
      TriggerMonitor: () => c.triggerMonitor({ id: monitorIds.http }),
      DeleteMonitor: () => c.deleteMonitor({ id: monitorIds.http }),
    };
  };
  const reads = (key: string | undefined) => {
    const c = api.client(key);
    return {
      ListMonitors: () => c.listMonitors({}),
      GetMonitor: () => c.getMonitor({ id: monitorIds.tcp }),
    };
  };

  it("answers unauthenticated without a key or with an unknown key, on every method", async () => {
    for (const key of [undefined, "", "vgl_unknown"]) {
      const all = { ...mutations(key as string), ...reads(key) };
      for (const [method, call] of Object.entries(all)) {
        expect([method, await codeOf(call())]).toEqual([method, Code.Unauthenticated]);
      }
    }
  });

  it("refuses every mutation to a read key with permission_denied, and writes nothing", async () => {
    const before = await api.client(ws.read.key).listMonitors({});
    for (const [method, call] of Object.entries(mutations(ws.read.key))) {
      expect([method, await codeOf(call())]).toEqual([method, Code.PermissionDenied]);
    }
    const after = await api.client(ws.read.key).listMonitors({});
    expect(after).toEqual(before);
  });

  it("lets a read key list and get", async () => {
    for (const [method, call] of Object.entries(reads(ws.read.key))) {
      expect([method, await codeOf(call())]).toEqual([method, "ok"]);
    }
  });

  it("treats a legacy key without scopes as write", async () => {
    const c = api.client(ws.legacy.key);
    const created = await c.createTCPMonitor({ monitor: { name: "legacy", uri: "example.com:22", periodicity } });
    expect(await codeOf(c.deleteMonitor({ id: created.monitor!.id }))).toBe("ok");
  });

  it("keeps workspaces apart: another workspace's ids are not found and not listed", async () => {
    const other = await api.workspace();
    const c = api.client(other.write.key);
    expect(await codeOf(c.getMonitor({ id: monitorIds.http }))).toBe(Code.NotFound);
    expect(await codeOf(c.updateTCPMonitor({ id: monitorIds.tcp, monitor: { name: "stolen" } }))).toBe(Code.NotFound);
    expect(await codeOf(c.deleteMonitor({ id: monitorIds.dns }))).toBe(Code.NotFound);
    expect(await codeOf(c.triggerMonitor({ id: monitorIds.dns }))).toBe(Code.NotFound);
    expect((await c.listMonitors({})).totalSize).toBe(0);
    expect(await codeOf(api.client(ws.write.key).getMonitor({ id: monitorIds.dns }))).toBe("ok");
  });

  it("uses HTTP 401 and 403 for the Connect protocol", async () => {
    const call = (key?: string) =>
      api.fetch("/monitor.v1.MonitorService/CreateTCPMonitor", {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { "x-service-key": key } : {}) },
        body: JSON.stringify({ monitor: { name: "x", uri: "example.com:1", periodicity: "PERIODICITY_1M" } }),
      });
    const anonymous = await call();
    expect(anonymous.status).toBe(401);
    expect((await jsonOf(anonymous)).code).toBe("unauthenticated");
    const readOnly = await call(ws.read.key);
    expect(readOnly.status).toBe(403);
    expect((await jsonOf(readOnly)).code).toBe("permission_denied");
  });

  describe("GET /v1/whoami", () => {
    const whoami = (key?: string) => api.fetch("/v1/whoami", { headers: key ? { "x-service-key": key } : {} });

    it.each([
      ["write", ["write"]],
      ["read", ["read"]],
      ["legacy", ["write"]],
    ] as const)("describes the workspace and a %s key", async (kind, scopes) => {
      const res = await whoami(ws[kind].key);
      expect(res.status).toBe(200);
      expect(await jsonOf(res)).toEqual({
        name: "Workspace 1",
        slug: ws.slug,
        plan: "free",
        actor: { type: "apiKey", keyId: ws[kind].id, scopes },
      });
    });

    it("answers 401 with a JSON error body without a valid key", async () => {
      for (const key of [undefined, "vgl_nope"]) {
        const res = await whoami(key);
        expect(res.status).toBe(401);
        expect(res.headers.get("content-type")).toContain("application/json");
        expect(await jsonOf(res)).toEqual({ code: "unauthenticated", message: expect.stringContaining("x-service-key") });
      }
    });
  });

  describe("DELETE /v1/api-key/{id}", () => {
    const revoke = (key: string, id: string) => api.fetch(`/v1/api-key/${id}`, { method: "DELETE", headers: { "x-service-key": key } });

    it("lets a write key revoke another key of its workspace, which fails at once", async () => {
      const keys = await api.workspace();
      const res = await revoke(keys.write.key, keys.read.id);
      expect(res.status).toBe(200);
      expect(await jsonOf(res)).toEqual({ id: keys.read.id, revoked: true, revokedAt: expect.any(String) });
      expect(await codeOf(api.client(keys.read.key).listMonitors({}))).toBe(Code.Unauthenticated);
      expect((await api.fetch("/v1/whoami", { headers: { "x-service-key": keys.read.key } })).status).toBe(401);
      // The writer itself is untouched.
      expect(await codeOf(api.client(keys.write.key).listMonitors({}))).toBe("ok");
    });

    it("lets a read key revoke itself but not another key", async () => {
      const keys = await api.workspace();
      const denied = await revoke(keys.read.key, keys.write.id);
      expect(denied.status).toBe(403);
      expect((await jsonOf(denied)).code).toBe("permission_denied");
      expect(await codeOf(api.client(keys.write.key).listMonitors({}))).toBe("ok");

      const self = await revoke(keys.read.key, keys.read.id);
      expect(self.status).toBe(200);
      expect(await codeOf(api.client(keys.read.key).listMonitors({}))).toBe(Code.Unauthenticated);
      expect((await revoke(keys.read.key, keys.read.id)).status).toBe(401);
    });

    it("answers 404 for a key of another workspace or an unknown id", async () => {
      const mine = await api.workspace();
      const theirs = await api.workspace();
      for (const id of [theirs.read.id, "no-such-key"]) {
        const res = await revoke(mine.write.key, id);
        expect(res.status).toBe(404);
        expect((await jsonOf(res)).code).toBe("not_found");
      }
      expect(await codeOf(api.client(theirs.read.key).listMonitors({}))).toBe("ok");
    });

    it("answers 401 without a key", async () => {
      const res = await api.fetch(`/v1/api-key/${ws.read.id}`, { method: "DELETE" });
      expect(res.status).toBe(401);
    });
  });
});
