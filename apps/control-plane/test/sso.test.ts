import { Code, type Client } from "@connectrpc/connect";
import { createLogger } from "@vigil/logging";
import { SESSION_COOKIE, SSO } from "@vigil/domain";
import { MonitorService } from "@vigil/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { SsoService, type SsoSettingsSchema } from "@vigil/proto/account";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { codeOf, rejection } from "./support/codes";
import { startTestProvider, throughProvider, type Claims, type TestProvider } from "./support/oidc-provider";
import { createPerson, sessionClient, sessionCookie, signedInPerson, type Person } from "./support/people";

type Sso = Client<typeof SsoService>;
type Settings = Omit<MessageInitShape<typeof SsoSettingsSchema>, "$typeName">;

describe.each(BACKENDS)("single sign-on on %s", (backend) => {
  let api: TestApi;
  let idp: TestProvider;
  let ws: WorkspaceKeys;
  let owner: Person;
  let people = 0;

  const asPerson = (token: string, workspace?: string): Sso => sessionClient(SsoService, api.baseUrl, token, { workspace });
  const settings = (overrides: Settings = {}): Settings => ({
    issuerUrl: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    defaultRole: "viewer",
    enabled: true,
    ...overrides,
  });

  /** A workspace with an owner signed in by password, whose SSO the owner set through SsoService. */
  async function ssoWorkspace(overrides: Settings = {}) {
    const keys = await api.workspace();
    const ownerOf = await signedInPerson(api.db.prisma, api.baseUrl, keys.slug, "owner");
    await asPerson(ownerOf.token, keys.slug).setSsoSettings({ settings: settings(overrides) });
    return { ...keys, owner: ownerOf };
  }

  const start = (slug: string) => `${api.baseUrl}/v1/auth/oidc/${slug}/start`;
  const callback = ({ query, cookie }: { query: string; cookie: string }) =>
    fetch(`${api.baseUrl}/v1/auth/oidc/callback${query}`, { redirect: "manual", headers: { cookie } });
  const newEmail = () => `sso-${++people}@example.com`;

  /** Signs in through the provider as `claims` says; the callback's answer and the session token it set. */
  async function signInWithSso(slug: string, claims: Claims) {
    idp.signInAs(`sub-${claims.email}`, claims);
    const flow = await throughProvider(start(slug), idp.issuer);
    const res = await callback(flow);
    const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
    secrets.push(new URLSearchParams(flow.query).get("code")!, token);
    return { res, token, body: res.status === 302 ? null : ((await res.json()) as { code: string; message: string }) };
  }

  const whoami = (token: string, workspace: string) =>
    fetch(`${api.baseUrl}/v1/whoami`, { headers: { cookie: `${SESSION_COOKIE}=${token}`, "x-vigil-workspace": workspace } });

  const written = async () => ({
    users: await api.db.prisma.user.findMany({ orderBy: { id: "asc" } }),
    memberships: await api.db.prisma.membership.count(),
    sessions: await api.db.prisma.userSession.count(),
    sso: await api.db.prisma.ssoSettings.findMany({ orderBy: { workspaceId: "asc" } }),
    audit: await api.db.prisma.auditEntry.count(),
  });

  const logs: string[] = [];
  /** Every code and session token the flow handed out, none of which may be logged. */
  const secrets: string[] = [];

  beforeAll(async () => {
    api = await startTestApi(backend, { logger: createLogger("debug", "test", { write: (line) => void logs.push(line) }) });
    idp = await startTestProvider(`https://vigil.test/v1/auth/oidc/callback`);
    ws = await api.workspace();
    owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
  });
  afterAll(async () => {
    await idp.close();
    await api.close();
  });

  describe("SsoService", () => {
    it("keeps the client secret encrypted, never answers it, and keeps it when a Set leaves it empty", async () => {
      const sso = asPerson(owner.token);
      const set = await sso.setSsoSettings({ settings: settings({ allowedDomains: ["Example.COM"], roleClaim: "groups", roleMapping: { admins: "admin" } }) });
      expect(set.settings).toMatchObject({ clientSecret: "", clientSecretSet: true, allowedDomains: ["example.com"], roleMapping: { admins: "admin" } });
      const workspace = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: ws.slug }, include: { sso: true } });
      expect(workspace.sso!.clientSecret).toMatch(/^v1:/);
      expect(workspace.sso!.clientSecret).not.toContain(idp.clientSecret);
      expect(api.notifications.box.open(workspace.sso!.clientSecret!)).toBe(idp.clientSecret);

      await sso.setSsoSettings({ settings: settings({ clientSecret: "", clientId: "renamed" }) });
      const got = await sso.getSsoSettings({});
      expect(got).toMatchObject({ redirectUri: "https://vigil.test/v1/auth/oidc/callback", signInUrl: `https://vigil.test/v1/auth/oidc/${ws.slug}/start` });
      expect(got.settings).toMatchObject({ clientId: "renamed", clientSecret: "", clientSecretSet: true });
      expect(JSON.stringify(got)).not.toContain(idp.clientSecret);
      const stored = await api.db.prisma.ssoSettings.findUniqueOrThrow({ where: { workspaceId: workspace.id } });
      expect(api.notifications.box.open(stored.clientSecret!)).toBe(idp.clientSecret);
    });

    it("audits SetSsoSettings with the secret as a fingerprint", async () => {
      await asPerson(owner.token).setSsoSettings({ settings: settings() });
      const entry = await api.db.prisma.auditEntry.findFirstOrThrow({ where: { method: "account.v1.SsoService/SetSsoSettings", userEmail: owner.email }, orderBy: { at: "desc" } });
      const changes = JSON.stringify(entry.changes);
      expect(changes).not.toContain(idp.clientSecret);
      expect(entry.changes).toMatchObject({ settings: { clientSecret: expect.stringMatching(/^fingerprint:[0-9a-f]{16}$/), issuerUrl: idp.issuer } });
    });

    it("refuses bad settings naming the field and the rule, and writes nothing", async () => {
      const sso = asPerson(owner.token);
      const cases: [Settings, string][] = [
        [{ issuerUrl: "http://idp.example.com" }, "settings.issuer_url: must be an https:// URL (http:// only for localhost or 127.0.0.1)"],
        [{ issuerUrl: "https://idp.example.com/?tenant=1" }, "settings.issuer_url: must have no query or fragment"],
        [{ defaultRole: "owner" }, "settings.default_role: must be one of admin, editor, viewer"],
        [{ allowedDomains: ["not a domain"] }, "settings.allowed_domains[0]: must be a domain name"],
        [{ roleMapping: { admins: "boss" } }, "settings.role_mapping.admins: must be one of owner, admin, editor, viewer"],
        [{ roleMapping: { admins: "admin" } }, "settings.role_claim: must name a claim when role_mapping is set"],
        [{ enforced: true, enabled: false }, "settings.enforced: needs enabled"],
        [{ clientId: "" }, "settings.client_id: must not be empty"],
      ];
      const before = await written();
      for (const [overrides, message] of cases) {
        const error = await rejection(sso.setSsoSettings({ settings: settings(overrides) }));
        expect([overrides, error.code, error.rawMessage]).toEqual([overrides, Code.InvalidArgument, expect.stringContaining(message)]);
      }
      expect(await written()).toEqual(before);
    });
  });

  describe("the OpenID Connect flow", () => {
    it("creates a new person with the default role, opens a session and sends them to the console", async () => {
      const w = await ssoWorkspace();
      const email = newEmail();
      const { res, token } = await signInWithSso(w.slug, { email, email_verified: true, name: "Ada Lovelace" });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`https://vigil.test/app/?workspace=${w.slug}`);
      const user = await api.db.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true, sessions: true } });
      expect(user).toMatchObject({ name: "Ada Lovelace", passwordHash: null, memberships: [{ role: "viewer" }], sessions: [{ method: `oidc:${user.memberships[0]!.workspaceId}` }] });
      const me = await whoami(token, w.slug);
      expect(await me.json()).toMatchObject({ slug: w.slug, actor: { type: "user", email, role: "viewer" } });
      const entry = await api.db.prisma.auditEntry.findFirstOrThrow({ where: { method: "GET /v1/auth/oidc/callback", userId: user.id } });
      expect(entry).toMatchObject({ workspaceId: user.memberships[0]!.workspaceId, targetKind: "User", targetId: user.id, changes: { email, role: "viewer", joined: true } });
    });

    it("makes one account and one membership of two first sign-ins of a new person at once, and signs both in", async () => {
      const w = await ssoWorkspace();
      const email = newEmail();
      idp.signInAs(`sub-${email}`, { email, email_verified: true });
      const flows = [await throughProvider(start(w.slug), idp.issuer), await throughProvider(start(w.slug), idp.issuer)];
      const answers = await Promise.all(flows.map((flow) => callback(flow)));
      expect(answers.map((res) => res.status)).toEqual([302, 302]);
      const user = await api.db.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true, sessions: true } });
      expect(user.memberships).toHaveLength(1);
      expect(user.sessions).toHaveLength(2);
    });

    it("gives the role the claim maps to, the most trusted of several, and keeps no name that breaks the rule of names", async () => {
      const w = await ssoWorkspace({ roleClaim: "groups", roleMapping: { staff: "editor", "vigil-admins": "admin" } });
      const [one, two, three] = [newEmail(), newEmail(), newEmail()];
      await signInWithSso(w.slug, { email: one, email_verified: true, groups: ["staff", "vigil-admins"] });
      await signInWithSso(w.slug, { email: two, email_verified: true, groups: "staff" });
      await signInWithSso(w.slug, { email: three, email_verified: true, groups: ["unmapped"], name: "Line\nBreak" });
      const roles = await api.db.prisma.membership.findMany({ where: { user: { email: { in: [one, two, three] } } }, include: { user: true } });
      expect(Object.fromEntries(roles.map((m) => [m.user.email, m.role]))).toEqual({ [one]: "admin", [two]: "editor", [three]: "viewer" });
      // A name that breaks the rule of names is not stored: the email stands in for it.
      expect(roles.find((m) => m.user.email === three)!.user.name).toBe(three);
    });

    it("joins the existing account of the same email, and a member keeps their role", async () => {
      const w = await ssoWorkspace({ roleClaim: "groups", roleMapping: { admins: "admin" } });
      const other = await api.workspace();
      const person = await createPerson(api, { [other.slug]: "editor" });
      const first = await signInWithSso(w.slug, { email: person.email.toUpperCase(), email_verified: true, groups: ["admins"] });
      expect(first.res.status).toBe(302);
      await api.db.prisma.membership.updateMany({ where: { userId: person.id, workspace: { slug: w.slug } }, data: { role: "viewer" } });
      expect((await signInWithSso(w.slug, { email: person.email, email_verified: true, groups: ["admins"] })).res.status).toBe(302);
      const user = await api.db.prisma.user.findUniqueOrThrow({ where: { email: person.email }, include: { memberships: { include: { workspace: true } } } });
      expect(user.id).toBe(person.id);
      expect(user.passwordHash).not.toBeNull();
      expect(Object.fromEntries(user.memberships.map((m) => [m.workspace.slug, m.role]))).toEqual({ [other.slug]: "editor", [w.slug]: "viewer" });
    });

    it("refuses a wrong state, and a callback replayed, creating nothing", async () => {
      const w = await ssoWorkspace();
      idp.signInAs("sub-replay", { email: newEmail(), email_verified: true });
      const flow = await throughProvider(start(w.slug), idp.issuer);
      const before = await written();
      const wrong = await callback({ query: flow.query.replace(/state=[^&]*/, "state=not-the-state"), cookie: "vigil_oidc_state=not-the-state" });
      expect([wrong.status, await wrong.json()]).toEqual([400, { code: "invalid_argument", message: "state: unknown, expired or already used; start signing in again" }]);
      expect(await written()).toEqual(before);
      expect((await callback(flow)).status).toBe(302);
      const after = await written();
      const replayed = await callback(flow);
      expect([replayed.status, ((await replayed.json()) as { message: string }).message]).toEqual([400, expect.stringContaining("already used")]);
      expect(await written()).toEqual(after);
    });

    it("refuses a callback in a browser that did not start the sign-in (login CSRF), which the rightful browser still finishes", async () => {
      const w = await ssoWorkspace();
      idp.signInAs("sub-csrf", { email: newEmail(), email_verified: true });
      const flow = await throughProvider(start(w.slug), idp.issuer);
      const before = await written();
      for (const cookie of ["", "vigil_oidc_state=someone-elses-state"]) {
        const res = await callback({ query: flow.query, cookie });
        expect([res.status, ((await res.json()) as { message: string }).message]).toEqual([400, expect.stringContaining("this browser did not start this sign-in")]);
      }
      expect(await written()).toEqual(before);
      const finished = await callback(flow);
      expect(finished.status).toBe(302);
      expect(finished.headers.getSetCookie()).toEqual(expect.arrayContaining([expect.stringMatching(/^vigil_oidc_state=; Max-Age=0; Path=\/v1\/auth\/oidc/)]));
    });

    it("refuses an unverified email and a domain not allowed, creating nothing", async () => {
      const w = await ssoWorkspace({ allowedDomains: ["example.com"] });
      const before = await written();
      const unverified = await signInWithSso(w.slug, { email: newEmail(), email_verified: false });
      expect([unverified.res.status, unverified.body?.message]).toEqual([403, expect.stringContaining("has not verified")]);
      const elsewhere = await signInWithSso(w.slug, { email: `someone-${++people}@elsewhere.org`, email_verified: true });
      expect([elsewhere.res.status, elsewhere.body?.message]).toEqual([403, expect.stringContaining("is not in a domain allowed to sign in")]);
      expect(await written()).toEqual(before);
    });

    it("answers 502 when the provider is down at the start or before the callback, creating nothing", async () => {
      const down = await startTestProvider("https://vigil.test/v1/auth/oidc/callback");
      const w = await ssoWorkspace({ issuerUrl: down.issuer, clientId: down.clientId, clientSecret: down.clientSecret });
      down.signInAs("sub-down", { email: newEmail(), email_verified: true });
      const flow = await throughProvider(start(w.slug), down.issuer);
      await down.close();
      const before = await written();
      const atCallback = await callback(flow);
      expect([atCallback.status, await atCallback.json()]).toEqual([502, { code: "bad_gateway", message: expect.stringContaining(`the identity provider ${down.issuer} could not be reached`) }]);
      const atStart = await fetch(start(w.slug), { redirect: "manual" });
      expect(atStart.status).toBe(502);
      expect(await written()).toEqual(before);
    });

    it("refuses a sign-in the person declined at the provider, naming the provider's error", async () => {
      const w = await ssoWorkspace();
      idp.declineNext();
      const before = await written();
      const res = await callback(await throughProvider(start(w.slug), idp.issuer));
      expect([res.status, await res.json()]).toEqual([400, { code: "invalid_argument", message: "the identity provider's answer was refused: access_denied: the person declined" }]);
      expect(await written()).toEqual(before);
    });

    it("answers 404 where SSO is not configured or not enabled", async () => {
      const none = await api.workspace();
      const off = await ssoWorkspace({ enabled: false });
      for (const slug of [none.slug, off.slug, "no-such-workspace"]) {
        const res = await fetch(start(slug), { redirect: "manual" });
        expect([res.status, await res.json()]).toEqual([404, { code: "not_found", message: `single sign-on is not enabled for workspace ${slug}` }]);
      }
    });
  });

  describe("enforcement", () => {
    it("keeps a password session out of an enforced workspace but not out of another; SSO sessions and API keys act", async () => {
      const w = await ssoWorkspace();
      const other = await api.workspace();
      const person = await createPerson(api, { [w.slug]: "editor", [other.slug]: "editor" });
      await asPerson(w.owner.token, w.slug).setSsoSettings({ settings: settings({ enforced: true }) });
      const password = (await sessionCookie(api.baseUrl, person.email, person.password)).slice(SESSION_COOKIE.length + 1);
      const monitors = (token: string, slug: string) => sessionClient(MonitorService, api.baseUrl, token, { workspace: slug }).listMonitors({});

      const refused = await rejection(monitors(password, w.slug));
      expect([refused.code, refused.rawMessage]).toEqual([Code.PermissionDenied, `workspace ${w.slug} requires single sign-on: sign in at /v1/auth/oidc/${w.slug}/start`]);
      expect((await whoami(password, w.slug)).status).toBe(403);
      expect(await codeOf(monitors(password, other.slug))).toBe("ok");
      expect(await codeOf(api.client(w.write.key).listMonitors({}))).toBe("ok");

      const { token } = await signInWithSso(w.slug, { email: person.email, email_verified: true });
      expect(await codeOf(monitors(token, w.slug))).toBe("ok");
    });

    it("enforces, and stops enforcing, on a password session already in use from the very next call", async () => {
      const w = await ssoWorkspace();
      const person = await createPerson(api, { [w.slug]: "editor" });
      const password = (await sessionCookie(api.baseUrl, person.email, person.password)).slice(SESSION_COOKIE.length + 1);
      const list = () => codeOf(sessionClient(MonitorService, api.baseUrl, password, { workspace: w.slug }).listMonitors({}));
      expect(await list()).toBe("ok");
      await asPerson(w.owner.token, w.slug).setSsoSettings({ settings: settings({ enforced: true }) });
      expect(await list()).toBe(Code.PermissionDenied);
      await asPerson(w.owner.token, w.slug).setSsoSettings({ settings: settings({ enforced: false }) });
      expect(await list()).toBe("ok");
    });

    it("lets a session opened by a workspace's SSO act in that workspace only (its default), for that provider vouches for no other", async () => {
      const w = await ssoWorkspace();
      const other = await api.workspace();
      const person = await createPerson(api, { [other.slug]: "owner" });
      const { token } = await signInWithSso(w.slug, { email: person.email, email_verified: true });
      expect(await (await fetch(`${api.baseUrl}/v1/whoami`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } })).json()).toMatchObject({ slug: w.slug });
      const refused = await rejection(sessionClient(MonitorService, api.baseUrl, token, { workspace: other.slug }).listMonitors({}));
      expect([refused.code, refused.rawMessage]).toEqual([Code.PermissionDenied, expect.stringContaining("opened by another workspace's single sign-on and acts only there")]);
      const password = (await sessionCookie(api.baseUrl, person.email, person.password)).slice(SESSION_COOKIE.length + 1);
      expect(await codeOf(sessionClient(MonitorService, api.baseUrl, password, { workspace: other.slug }).listMonitors({}))).toBe("ok");
    });

    it("lets an owner's password session mend SSO in an enforced workspace, and nothing else", async () => {
      const w = await ssoWorkspace({ enforced: true });
      const sso = asPerson(w.owner.token, w.slug);
      expect(await codeOf(sessionClient(MonitorService, api.baseUrl, w.owner.token, { workspace: w.slug }).listMonitors({}))).toBe(Code.PermissionDenied);
      await sso.setSsoSettings({ settings: settings({ enforced: false }) });
      expect(await codeOf(sessionClient(MonitorService, api.baseUrl, w.owner.token, { workspace: w.slug }).listMonitors({}))).toBe("ok");
    });
  });

  it("logs sign-ins and refusals without a code, a session token or the client secret", () => {
    const text = logs.join("");
    expect(text).toContain("signed in with single sign-on");
    expect(text).toContain("single sign-on refused");
    for (const secret of [idp.clientSecret, ...secrets.filter(Boolean)]) expect(text).not.toContain(secret);
  });

  // Last: it uses up this server's starts for the loopback address.
  it("answers 429 to an address past its sign-in starts, before any reaches Redis or the provider", async () => {
    const w = await ssoWorkspace();
    const pending = async () => (await api.pipeline.redis.keys(`${api.redisPrefix}:oidc:*`)).length;
    const statuses = new Set<number>();
    for (let i = 0; i <= SSO.startsPerAddress && !statuses.has(429); i++) statuses.add((await fetch(start(w.slug), { redirect: "manual" })).status);
    expect([...statuses]).toEqual([302, 429]);
    const before = await pending();
    const refused = await fetch(start(w.slug), { redirect: "manual" });
    expect([refused.status, refused.headers.get("retry-after"), ((await refused.json()) as { code: string }).code]).toEqual([429, expect.stringMatching(/^\d+$/), "resource_exhausted"]);
    expect(await pending()).toBe(before);
  });
});
