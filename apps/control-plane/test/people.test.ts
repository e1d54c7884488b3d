import { Code, createClient } from "@connectrpc/connect";
import { MonitorService, Periodicity } from "@vigil/proto";
import { MemberService } from "@vigil/proto/account";
import { ACCOUNTS, SESSION_COOKIE } from "@vigil/domain";
import { codeOf } from "./support/codes";
import { BACKENDS, jsonOf, startTestApi, transportTo, type TestApi, type WorkspaceKeys } from "./support/api";
import { GOOD_PASSWORD, personWithRole, sessionClient, signIn } from "./support/people";
import { firstLinkOf, startMailbox } from "./support/page-access";
import { eventually } from "../../../test/eventually";

const accept = (api: TestApi, body: Record<string, string>) =>
  api.fetch("/account.v1.MemberService/AcceptInvitation", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const whoami = (baseUrl: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v1/whoami`, { headers: { cookie: `${SESSION_COOKIE}=${token}`, ...headers } });

describe.each(BACKENDS)("people: invitations, sign-in, sessions and roles on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;

  beforeAll(async () => {
    mailbox = await startMailbox();
    api = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url, PUBLIC_URL: "https://vigil.example.com" } });
    ws = await api.workspace();
  });
  afterAll(async () => {
    await api.close();
    await mailbox.close();
  });

  it("makes the first owner from an invitation that names no one, answers with the session cookie, and whoami names the person", async () => {
    const { token } = await api.admin.inviteUser({ workspaceSlug: ws.slug, email: "", role: "owner" }, 24);
    const missingEmail = await accept(api, { token, name: "Ada", password: GOOD_PASSWORD });
    expect(missingEmail.status).toBe(400);
    expect((await jsonOf(missingEmail)).message).toMatch(/^email: /);

    const res = await accept(api, { token, name: "Ada", password: GOOD_PASSWORD, email: " Ada@Example.com " });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43};`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Secure/); // PUBLIC_URL is https
    const body = await jsonOf(res);
    expect(body).toMatchObject({ member: { email: "ada@example.com", name: "Ada", role: "owner" }, workspaceSlug: ws.slug });

    const session = /^vigil_session=([^;]*)/.exec(cookie)![1]!;
    const me = await whoami(api.baseUrl, session);
    expect(me.status).toBe(200);
    expect(await jsonOf(me)).toEqual({
      name: expect.any(String),
      slug: ws.slug,
      plan: "free",
      actor: { type: "user", userId: body.member.id, email: "ada@example.com", role: "owner", scopes: ["write"] },
    });

    // Single-use.
    const again = await accept(api, { token, name: "Eve", password: GOOD_PASSWORD, email: "eve@example.com" });
    expect(again.status).toBe(400);
    expect((await jsonOf(again)).message).toMatch(/^token: the invitation is unknown, already used, withdrawn or expired/);
  });

  it("refuses a password under 12 characters or a common one, naming the field, and creates nothing", async () => {
    const { token } = await api.admin.inviteUser({ workspaceSlug: ws.slug, email: "short@example.com", role: "viewer" });
    for (const [password, rule] of [
      ["elevenchars", "must be 12 to 256 characters"],
      ["123qweasdzxc", "is one of the most common passwords"],
    ] as const) {
      const res = await accept(api, { token, name: "Short", password });
      expect(res.status).toBe(400);
      expect((await jsonOf(res)).message).toContain(`password: ${rule}`);
    }
    expect(await api.db.prisma.user.count({ where: { email: "short@example.com" } })).toBe(0);
    // Exactly 12 characters is enough.
    expect((await accept(api, { token, name: "Short", password: "twelve-chars" })).status).toBe(200);
  });

  it("signs in and out; a wrong password and an unknown email get the same answer", async () => {
    const person = await personWithRole(api, ws.slug, "viewer");
    const wrong = await signIn(api.baseUrl, person.email, "not-the-password-1");
    const unknown = await signIn(api.baseUrl, "nobody@example.com", "not-the-password-1");
    expect([wrong.res.status, unknown.res.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.token).toBe("");

    const ok = await signIn(api.baseUrl, person.email.toUpperCase(), GOOD_PASSWORD);
    expect(ok.res.status).toBe(200);
    expect(ok.body).toMatchObject({ user: { email: person.email }, workspaces: [{ slug: ws.slug, role: "viewer" }] });
    expect((await whoami(api.baseUrl, ok.token)).status).toBe(200);

    const out = await fetch(`${api.baseUrl}/v1/auth/sign-out`, { method: "POST", headers: { cookie: `${SESSION_COOKIE}=${ok.token}` } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^vigil_session=;.*Max-Age=0/);
    expect((await whoami(api.baseUrl, ok.token)).status).toBe(401);
    // The other session of the same person is untouched.
    expect((await whoami(api.baseUrl, person.token)).status).toBe(200);
  });

  it("refuses a body that is not JSON sent as application/json", async () => {
    const res = await api.fetch("/v1/auth/sign-in", { method: "POST", headers: { "content-type": "text/plain" }, body: '{"email":"a@b.c","password":"x"}' });
    expect(res.status).toBe(400);
    expect((await jsonOf(res)).message).toMatch(/application\/json/);
  });

  it("acts with the role: a viewer reads, an editor changes monitors, neither manages members", async () => {
    const viewer = await personWithRole(api, ws.slug, "viewer");
    const editor = await personWithRole(api, ws.slug, "editor");
    const monitor = { monitor: { name: "by a person", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } };

    const asViewer = sessionClient(MonitorService, api.baseUrl, viewer.token);
    expect(await codeOf(asViewer.listMonitors({}))).toBe("ok");
    expect(await codeOf(asViewer.createHTTPMonitor(monitor))).toBe(Code.PermissionDenied);

    const asEditor = sessionClient(MonitorService, api.baseUrl, editor.token);
    const created = await asEditor.createHTTPMonitor(monitor);
    expect(created.monitor?.name).toBe("by a person");
    expect(await codeOf(sessionClient(MemberService, api.baseUrl, editor.token).inviteMember({ email: "x@example.com", role: "viewer" }))).toBe(
      Code.PermissionDenied,
    );
    // Keys act at most as editors: a write key manages no members either.
    expect(await codeOf(createClient(MemberService, transportTo(api.baseUrl, ws.write.key)).listInvitations({}))).toBe(Code.PermissionDenied);

    const audit = await api.db.prisma.auditEntry.findFirst({ where: { targetId: created.monitor!.id } });
    expect(audit).toMatchObject({ actorType: "user", userId: editor.userId, userEmail: editor.email, apiKeyId: null });
  });

  it("lets admins invite by mail, change roles and remove members; only owners touch owners; an owner always remains", async () => {
    const admin = await personWithRole(api, ws.slug, "admin");
    const members = sessionClient(MemberService, api.baseUrl, admin.token);

    const { invitation } = await members.inviteMember({ email: "Grace@Example.com", role: "editor" });
    expect(invitation).toMatchObject({ email: "grace@example.com", role: "editor", invitedBy: admin.userId });
    const mail = await eventually(() => mailbox.mailTo("grace@example.com"));
    const link = new URL(firstLinkOf(mail));
    expect(`${link.origin}${link.pathname}`).toBe("https://vigil.example.com/app/invite");
    expect((await members.listInvitations({})).invitations.map((i) => i.id)).toContain(invitation!.id);

    expect(await codeOf(members.inviteMember({ email: "boss@example.com", role: "owner" }))).toBe(Code.PermissionDenied);
    expect(await codeOf(members.inviteMember({ email: "nobody", role: "viewer" }))).toBe(Code.InvalidArgument);
    expect(await codeOf(members.inviteMember({ email: "x@example.com", role: "superuser" }))).toBe(Code.InvalidArgument);

    const accepted = await accept(api, { token: link.searchParams.get("token")!, name: "Grace", password: GOOD_PASSWORD });
    expect([accepted.status, accepted.status === 200 ? "" : await accepted.text()]).toEqual([200, ""]);
    const grace = (await jsonOf(accepted)).member;
    expect((await members.listInvitations({})).invitations.map((i) => i.id)).not.toContain(invitation!.id);

    expect((await members.updateMemberRole({ id: grace.id, role: "viewer" })).member?.role).toBe("viewer");
    expect(await codeOf(members.updateMemberRole({ id: grace.id, role: "owner" }))).toBe(Code.PermissionDenied);
    await members.removeMember({ id: grace.id });
    expect((await members.listMembers({})).members.map((m) => m.id)).not.toContain(grace.id);

    // The workspace's owners: an owner cannot step down while no other owner remains.
    const owner = await personWithRole(api, ws.slug, "owner");
    const asOwner = sessionClient(MemberService, api.baseUrl, owner.token);
    const owners = (await asOwner.listMembers({})).members.filter((m) => m.role === "owner");
    for (const other of owners.filter((m) => m.id !== owner.userId)) await asOwner.removeMember({ id: other.id });
    expect(await codeOf(asOwner.updateMemberRole({ id: owner.userId, role: "admin" }))).toBe(Code.FailedPrecondition);
    expect(await codeOf(asOwner.removeMember({ id: owner.userId }))).toBe(Code.FailedPrecondition);
  });

  it("refuses a session's request from another origin, and a workspace the person is not a member of", async () => {
    const editor = await personWithRole(api, ws.slug, "editor");
    const list = (headers: Record<string, string>) => codeOf(sessionClient(MonitorService, api.baseUrl, editor.token, { headers }).listMonitors({}));
    expect(await list({ "sec-fetch-site": "cross-site" })).toBe(Code.PermissionDenied);
    expect(await list({ origin: "https://evil.example" })).toBe(Code.PermissionDenied);
    expect(await list({ "sec-fetch-site": "same-origin" })).toBe("ok");
    expect(await list({ origin: "https://vigil.example.com" })).toBe("ok");

    const other = await api.workspace();
    expect(await codeOf(sessionClient(MonitorService, api.baseUrl, editor.token, { workspace: other.slug }).listMonitors({}))).toBe(Code.PermissionDenied);
    const crossSignIn = await signIn(api.baseUrl, editor.email, GOOD_PASSWORD, { origin: "https://evil.example" });
    expect(crossSignIn.res.status).toBe(403);
  });

  it("limits sign-in attempts per account, with Retry-After", async () => {
    const person = await personWithRole(api, ws.slug, "viewer");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await signIn(api.baseUrl, person.email, "wrong-password-again")).res.status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const refused = await signIn(api.baseUrl, person.email, GOOD_PASSWORD);
    expect(refused.res.status).toBe(429);
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("counts wrong passwords of an existing account given to accept an invitation toward the account's sign-in limit", async () => {
    const person = await personWithRole(api, ws.slug, "viewer");
    const other = await api.workspace();
    // Whoever may invite could otherwise guess at any account's password through the acceptance.
    const { token } = await api.admin.inviteUser({ workspaceSlug: other.slug, email: person.email, role: "viewer" });
    const statuses: number[] = [];
    for (let i = 0; i < ACCOUNTS.signInAttemptsPerAccount; i++) statuses.push((await accept(api, { token, password: `wrong-guess-number-${i}` })).status);
    expect(statuses.every((s) => s === 400)).toBe(true);
    const refused = await accept(api, { token, password: GOOD_PASSWORD });
    expect(refused.status).toBe(429);
    expect((await signIn(api.baseUrl, person.email, GOOD_PASSWORD)).res.status).toBe(429);
    expect(await api.db.prisma.membership.count({ where: { userId: person.userId, workspace: { slug: other.slug } } })).toBe(0);
  });

  it("keeps no person's secret in the audit log", async () => {
    const person = await personWithRole(api, ws.slug, "viewer");
    const entry = await api.db.prisma.auditEntry.findFirst({ where: { method: "account.v1.MemberService/AcceptInvitation", userId: person.userId } });
    expect(entry).toMatchObject({ actorType: "user", userEmail: person.email });
    expect(JSON.stringify(entry!.changes)).not.toContain(GOOD_PASSWORD);
    expect(entry!.changes).toMatchObject({ token: "(not recorded)", password: "(not recorded)" });
  });
});
