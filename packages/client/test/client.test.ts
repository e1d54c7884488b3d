import { randomUUID } from "node:crypto";
import { IncidentService, MaintenanceService, MonitorService, Periodicity } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { AccountService } from "@vigil/proto/account";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../../apps/control-plane/test/support/api.js";
import { enrolSecondFactor, signedInPerson, totpCodeAt } from "../../../apps/control-plane/test/support/people.js";
import { failureOf, loadBuiltClient, type ClientPackage } from "./support/built.js";

const periodicity = Periodicity.PERIODICITY_1M;
const ENV_NAMES = ["SERVICE_API_KEY", "SERVICE_API_URL"] as const;
/** A port nothing listens on: calls sent there would fail, so a passing call proves it went elsewhere. */
const NOWHERE = "http://127.0.0.1:9";

describe("@vigil/client against a real API server", () => {
  let vigil: ClientPackage;
  let api: TestApi;
  let ws: WorkspaceKeys;
  const savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    vigil = await loadBuiltClient();
    api = await startTestApi("pglite");
    ws = await api.workspace();
  });
  afterAll(() => api?.close());
  beforeEach(() => ENV_NAMES.forEach((name) => delete process.env[name]));
  afterEach(() => {
    for (const name of ENV_NAMES) {
      if (savedEnv[name] === undefined) delete process.env[name];
      else process.env[name] = savedEnv[name];
    }
  });

  const client = (options: Parameters<ClientPackage["createClient"]>[0] = {}) =>
    vigil.createClient({ baseUrl: api.baseUrl, apiKey: ws.write.key, ...options });

  describe("every method of every service reaches its handler", () => {
    const services = [
      ["monitors", MonitorService],
      ["incidents", IncidentService],
      ["maintenance", MaintenanceService],
      ["notifications", NotificationService],
      ["statusPages", StatusPageService],
    ] as const;
    const methods = services.flatMap(([property, service]) => service.methods.map((method) => [property, method.localName, method.methodKind] as const));

    // An empty request names no existing resource: the handler answers it, with data or with a validation or lookup error.
    it.each(methods)("%s.%s", async (property, name, kind) => {
      const call = (client()[property] as unknown as Record<string, (request: object) => unknown>)[name];
      expect(typeof call).toBe("function");
      const answered = async () => {
        // A stream's first message is its answer.
        if (kind === "server_streaming") for await (const _ of call!({}) as AsyncIterable<unknown>) break;
        else await call!({});
      };
      const outcome = await answered().then(
        () => "ok",
        (error: InstanceType<ClientPackage["VigilError"]>) => error.code,
      );
      expect(["ok", "invalid_argument", "not_found", "failed_precondition"]).toContain(outcome);
    });

    it("exposes exactly the generated methods", () => {
      const c = client();
      for (const [property, service] of services) {
        expect(Object.keys(c[property]).sort()).toEqual(service.methods.map((m) => m.localName).sort());
      }
    });
  });

  it("exposes AccountService, which the server answers to a person's session and refuses to an API key", async () => {
    const c = client();
    expect(Object.keys(c.account).sort()).toEqual(AccountService.methods.map((m) => m.localName).sort());
    expect(await c.account.getProfile({}).then(() => "ok", (error: InstanceType<ClientPackage["VigilError"]>) => error.code)).toBe("permission_denied");
  });

  it("follows WatchMonitorOverviews as an async iterable until its signal aborts, and maps its failures", async () => {
    const own = await api.workspace();
    const c = client({ apiKey: own.write.key });
    const { monitor } = await c.monitors.createHTTPMonitor({ monitor: { name: "watched", url: "https://example.com", periodicity } });
    const { changeToken } = await c.monitors.listMonitorOverviews({});
    const abort = new AbortController();
    const names: string[] = [];
    for await (const message of c.monitors.watchMonitorOverviews({ changedSince: changeToken }, { signal: abort.signal })) {
      names.push(...message.monitors.map((m) => m.name));
      if (names.includes("renamed")) abort.abort();
      else await c.monitors.updateHTTPMonitor({ id: monitor!.id, monitor: { name: "renamed" } });
    }
    expect(names).toContain("renamed");

    const refused = client({ apiKey: "vgl_unknown" }).monitors.watchMonitorOverviews({});
    const error = await (async () => {
      for await (const _ of refused) break;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(vigil.VigilError);
    expect((error as InstanceType<ClientPackage["VigilError"]>).code).toBe("unauthenticated");
  });

  it("creates and reads back a monitor with typed messages", async () => {
    const c = client();
    const { monitor } = await c.monitors.createHTTPMonitor({ monitor: { name: "typed", url: "https://example.com", periodicity } });
    const read = await c.monitors.getMonitor({ id: monitor!.id });
    expect(read.monitor?.config).toEqual({ case: "http", value: expect.objectContaining({ id: monitor!.id, name: "typed" }) });
    const { httpMonitors } = await c.monitors.listMonitors({});
    expect(httpMonitors.map((m) => m.id)).toContain(monitor!.id);
  });

  describe("key and endpoint from options and environment", () => {
    it("takes the key from SERVICE_API_KEY and the endpoint from SERVICE_API_URL", async () => {
      process.env.SERVICE_API_KEY = ws.read.key;
      process.env.SERVICE_API_URL = api.baseUrl;
      const c = vigil.createClient();
      expect(c.baseUrl).toBe(api.baseUrl);
      expect((await c.whoami()).actor).toEqual(expect.objectContaining({ keyId: ws.read.id }));
    });

    it("prefers the apiKey and baseUrl options over the environment", async () => {
      process.env.SERVICE_API_KEY = ws.read.key;
      process.env.SERVICE_API_URL = NOWHERE;
      const c = vigil.createClient({ apiKey: ws.write.key, baseUrl: api.baseUrl });
      expect(c.baseUrl).toBe(api.baseUrl);
      expect((await c.whoami()).actor).toEqual(expect.objectContaining({ keyId: ws.write.id }));
    });

    it("defaults to the documented endpoint", () => {
      expect(vigil.createClient().baseUrl).toBe("http://localhost:8080");
      expect(vigil.DEFAULT_BASE_URL).toBe("http://localhost:8080");
    });

    it("reports a missing key at the first call, naming SERVICE_API_KEY and the option", async () => {
      const c = vigil.createClient({ baseUrl: api.baseUrl });
      for (const call of [c.monitors.listMonitors({}), c.whoami()]) {
        const error = await failureOf(call);
        expect(error.code).toBe("unauthenticated");
        expect(error.message).toMatch(/SERVICE_API_KEY/);
        expect(error.message).toMatch(/apiKey option/);
      }
    });
  });

  describe("errors", () => {
    it("maps a missing resource to not_found", async () => {
      const error = await failureOf(client().monitors.getMonitor({ id: randomUUID() }));
      expect({ code: error.code, violations: error.violations }).toEqual({ code: "not_found", violations: [] });
      expect(error.message).toMatch(/not found/);
    });

    it("maps an unknown key to unauthenticated", async () => {
      const error = await failureOf(client({ apiKey: "vgl_unknown" }).monitors.listMonitors({}));
      expect(error.code).toBe("unauthenticated");
    });

    it("maps a mutation with a read key to permission_denied", async () => {
      const call = client({ apiKey: ws.read.key }).monitors.createHTTPMonitor({ monitor: { name: "x", url: "https://example.com", periodicity } });
      expect((await failureOf(call)).code).toBe("permission_denied");
    });

    it("decodes field violations of invalid_argument", async () => {
      const call = client().monitors.createHTTPMonitor({ monitor: { name: "", url: "not a url", periodicity } });
      const error = await failureOf(call);
      expect(error.code).toBe("invalid_argument");
      const fields = error.violations.map((v) => v.field);
      expect(fields).toEqual(expect.arrayContaining(["monitor.name", "monitor.url"]));
      for (const violation of error.violations) expect(violation.rule).not.toHaveLength(0);
      expect(error.message).toBe(error.violations.map((v) => `${v.field}: ${v.rule}`).join("; "));
    });
  });

  it.each(["grpc", "grpc-web"] as const)("speaks %s when asked", async (protocol) => {
    const c = client({ protocol });
    const { monitor } = await c.monitors.createTCPMonitor({ monitor: { name: `over ${protocol}`, uri: "example.com:443", periodicity } });
    const read = await c.monitors.getMonitor({ id: monitor!.id });
    expect(read.monitor?.config).toEqual({ case: "tcp", value: expect.objectContaining({ name: `over ${protocol}` }) });
    expect((await failureOf(c.monitors.getMonitor({ id: randomUUID() }))).code).toBe("not_found");
    expect((await failureOf(client({ protocol, apiKey: "vgl_unknown" }).monitors.listMonitors({}))).code).toBe("unauthenticated");
  });

  describe("whoami and revokeApiKey", () => {
    it("tells the workspace and key", async () => {
      const identity = await client({ apiKey: ws.read.key }).whoami();
      expect(identity).toEqual({
        name: expect.any(String),
        slug: ws.slug,
        plan: expect.any(String),
        actor: { type: "apiKey", keyId: ws.read.id, scopes: ["read"] },
      });
      expect((await failureOf(client({ apiKey: "vgl_unknown" }).whoami())).code).toBe("unauthenticated");
    });

    it("revokes a key, after which it no longer works", async () => {
      const own = await api.workspace();
      const revoked = await client({ apiKey: own.write.key }).revokeApiKey(own.read.id);
      expect(revoked).toEqual({ id: own.read.id, revoked: true, revokedAt: expect.any(Date) });
      expect((await failureOf(client({ apiKey: own.read.key }).whoami())).code).toBe("unauthenticated");
    });

    it("answers not_found for an unknown key and permission_denied when a read key revokes another", async () => {
      const own = await api.workspace();
      const unknown = await failureOf(client({ apiKey: own.write.key }).revokeApiKey(randomUUID()));
      expect(unknown.code).toBe("not_found");
      expect(unknown.message).toMatch(/not found/);
      const denied = await failureOf(client({ apiKey: own.read.key }).revokeApiKey(own.write.id));
      expect(denied.code).toBe("permission_denied");
    });
  });

  describe("a person's session and apiKeys", () => {
    it("signs in, calls with the session (an API key option winning over it), manages keys and signs out", async () => {
      const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
      const signedIn = await vigil.createClient({ baseUrl: api.baseUrl }).signIn({ email: person.email, password: person.password });
      expect(signedIn).toEqual({
        token: expect.any(String),
        expiresAt: expect.any(Date),
        user: expect.objectContaining({ id: person.userId, email: person.email }),
        workspaces: [expect.objectContaining({ slug: ws.slug, role: "owner" })],
      });
      // SERVICE_API_KEY does not override a session given as an option.
      process.env.SERVICE_API_KEY = ws.read.key;
      const asOwner = vigil.createClient({ baseUrl: api.baseUrl, session: signedIn.token });
      expect((await asOwner.whoami()).actor).toEqual(expect.objectContaining({ type: "user", email: person.email, role: "owner" }));
      expect((await client({ session: signedIn.token, apiKey: ws.read.key }).whoami()).actor).toEqual(expect.objectContaining({ keyId: ws.read.id }));

      const created = await asOwner.apiKeys.createApiKey({ name: "from the client", scopes: ["read"] });
      expect((await client({ apiKey: created.key }).whoami()).actor).toEqual(expect.objectContaining({ keyId: created.apiKey!.id }));
      expect((await asOwner.apiKeys.listApiKeys({})).apiKeys.map((k) => k.id)).toContain(created.apiKey!.id);
      expect((await asOwner.apiKeys.revokeApiKey({ id: created.apiKey!.id })).apiKey!.revokedAt).toBeDefined();
      expect((await failureOf(client().apiKeys.listApiKeys({}))).code).toBe("permission_denied");

      await asOwner.signOut();
      expect((await failureOf(asOwner.whoami())).code).toBe("unauthenticated");
    });

    it("sets and reads the workspace's single sign-on as its owner, the secret never answered", async () => {
      const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
      const asOwner = vigil.createClient({ baseUrl: api.baseUrl, session: person.token });
      const settings = { issuerUrl: "https://idp.example.com", clientId: "vigil", clientSecret: "client-secret-value", defaultRole: "viewer", enabled: false };
      expect((await asOwner.sso.setSsoSettings({ settings })).settings).toEqual(expect.objectContaining({ clientSecret: "", clientSecretSet: true }));
      const got = await asOwner.sso.getSsoSettings({});
      expect(got.settings).toEqual(expect.objectContaining({ issuerUrl: "https://idp.example.com", clientSecret: "", clientSecretSet: true }));
      expect((await failureOf(client({ apiKey: ws.write.key }).sso.getSsoSettings({}))).code).toBe("permission_denied");
    });

    it("answers unauthenticated to a wrong password", async () => {
      const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
      const wrong = await failureOf(vigil.createClient({ baseUrl: api.baseUrl }).signIn({ email: person.email, password: "not it at all" }));
      expect([wrong.code, wrong.message]).toEqual(["unauthenticated", "wrong email or password"]);
    });

    it("throws SecondFactorRequired to a person with a second factor who sends no code, and signs them in with one", async () => {
      const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
      const { secret } = await enrolSecondFactor(api.baseUrl, `vigil_session=${person.token}`);
      const anonymous = vigil.createClient({ baseUrl: api.baseUrl });
      const missing = await failureOf(anonymous.signIn({ email: person.email, password: person.password }));
      expect(missing).toBeInstanceOf(vigil.SecondFactorRequired);
      expect([missing.code, missing.message]).toEqual(["unauthenticated", expect.stringMatching(/second factor/)]);
      const signedIn = await anonymous.signIn({ email: person.email, password: person.password, totp: totpCodeAt(secret, Date.now() + 30_000) });
      expect(signedIn.user.email).toBe(person.email);
    });
  });
});
