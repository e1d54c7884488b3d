import { Code, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ACCOUNTS } from "@vigil/domain";
import { MonitorService } from "@vigil/proto";
import { AccountService } from "@vigil/proto/account";
import { BACKENDS, startTestApi, type Replica, type TestApi, type WorkspaceKeys } from "./support/api";
import { codeOf, rejection } from "./support/codes";
import { accountClient, createPerson, sessionCookie, withCookie } from "./support/people";
import { reflectedServices } from "./support/reflection";

describe.each(BACKENDS)("AccountService on %s", (backend) => {
  let api: TestApi;
  let replica: Replica;
  let ws: WorkspaceKeys;
  let other: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi(backend);
    // A second control plane of the same deployment: the same database.
    replica = await api.startReplica();
    ws = await api.workspace();
    other = await api.workspace();
  });
  afterAll(async () => {
    await replica?.close();
    await api?.close();
  });

  const written = async () => ({
    users: await api.db.prisma.user.findMany({ orderBy: { id: "asc" } }),
    sessions: await api.db.prisma.userSession.findMany({ orderBy: { id: "asc" } }),
    audit: await api.db.prisma.auditEntry.count(),
  });

  const everyMethod = (c: ReturnType<typeof accountClient>, sessionId = "no-such-session") => ({
    GetProfile: () => c.getProfile({}),
    UpdateProfile: () => c.updateProfile({ name: "Renamed" }),
    ChangePassword: () => c.changePassword({ currentPassword: "correct horse battery staple", newPassword: "another long passphrase" }),
    ListSessions: () => c.listSessions({}),
    EndSession: () => c.endSession({ id: sessionId }),
    ListWorkspaces: () => c.listWorkspaces({}),
    BeginTotpEnrolment: () => c.beginTotpEnrolment({}),
    ConfirmTotpEnrolment: () => c.confirmTotpEnrolment({ code: "123456" }),
    DisableTotp: () => c.disableTotp({ password: "correct horse battery staple" }),
    RegenerateRecoveryCodes: () => c.regenerateRecoveryCodes({ code: "123456" }),
    SendVerificationEmail: () => c.sendVerificationEmail({}),
  });

  describe("access", () => {
    it("answers a person who is a member of no workspace, whom every other service refuses", async () => {
      const person = await createPerson(api);
      const cookie = await sessionCookie(api.baseUrl, person.email, person.password);
      const c = accountClient(api.baseUrl, cookie);
      expect((await c.getProfile({})).profile?.email).toBe(person.email);
      expect((await c.listWorkspaces({})).workspaces).toEqual([]);
      expect((await c.listSessions({})).sessions).toHaveLength(1);
      const monitors = createClient(MonitorService, createConnectTransport({ baseUrl: api.baseUrl, httpVersion: "1.1", interceptors: [withCookie(cookie)] }));
      expect(await codeOf(monitors.listMonitors({}))).toBe(Code.PermissionDenied);
    });

    it("answers unauthenticated to an ended or unknown session", async () => {
      const c = accountClient(api.baseUrl, "vigil_session=not-a-session");
      expect(await codeOf(c.getProfile({}))).toBe(Code.Unauthenticated);
    });

    it("refuses a session sent from another site with permission_denied, changing nothing", async () => {
      const person = await createPerson(api, { [ws.slug]: "owner" });
      const cookie = await sessionCookie(api.baseUrl, person.email, person.password);
      const crossSite: Interceptor = (next) => (req) => {
        req.header.set("sec-fetch-site", "cross-site");
        return next(req);
      };
      const c = createClient(AccountService, createConnectTransport({ baseUrl: api.baseUrl, httpVersion: "1.1", interceptors: [withCookie(cookie), crossSite] }));
      const before = await written();
      for (const [method, call] of Object.entries(everyMethod(c))) expect([method, await codeOf(call())]).toEqual([method, Code.PermissionDenied]);
      expect(await written()).toEqual(before);
    });

    it("is listed by gRPC server reflection", async () => {
      expect(await reflectedServices(api.baseUrl)).toContain("account.v1.AccountService");
    });
  });

  describe("profile and workspaces", () => {
    it("answers the person's profile, renames them, and refuses a bad name naming the field", async () => {
      const person = await createPerson(api, { [ws.slug]: "viewer" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      const { profile } = await c.getProfile({});
      expect(profile).toMatchObject({ id: person.id, email: person.email });
      expect(profile?.createdAt).toBeDefined();
      // A viewer may change their own account: it is no workspace's data.
      expect((await c.updateProfile({ name: "Ada Lovelace" })).profile?.name).toBe("Ada Lovelace");
      const error = await rejection(c.updateProfile({ name: "x".repeat(ACCOUNTS.userNameMaxChars + 1) }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toMatch(/^name: /);
      expect((await c.getProfile({})).profile?.name).toBe("Ada Lovelace");
    });

    it("lists each workspace the person belongs to with their role there", async () => {
      const person = await createPerson(api, { [ws.slug]: "editor", [other.slug]: "owner" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      const { workspaces } = await c.listWorkspaces({});
      expect(workspaces.map(({ slug, role }) => ({ slug, role })).sort((a, b) => a.slug.localeCompare(b.slug))).toEqual(
        [
          { slug: ws.slug, role: "editor" },
          { slug: other.slug, role: "owner" },
        ].sort((a, b) => a.slug.localeCompare(b.slug)),
      );
      expect(workspaces.every((w) => w.name.startsWith("Workspace "))).toBe(true);
    });
  });

  describe("password", () => {
    it("refuses a wrong current password naming current_password, and a weak new one naming new_password, changing nothing", async () => {
      const person = await createPerson(api, { [ws.slug]: "editor" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      const before = await written();
      const wrong = await rejection(c.changePassword({ currentPassword: "not my password at all", newPassword: "a fine new passphrase" }));
      expect([wrong.code, wrong.rawMessage]).toEqual([Code.InvalidArgument, "current_password: is not your current password"]);
      const short = await rejection(c.changePassword({ currentPassword: person.password, newPassword: "Zq9!xw" }));
      expect([short.code, short.rawMessage]).toEqual([Code.InvalidArgument, `new_password: must be ${ACCOUNTS.passwordMinChars} to ${ACCOUNTS.passwordMaxChars} characters`]);
      const common = await rejection(c.changePassword({ currentPassword: person.password, newPassword: "qwerty123456" }));
      expect(common.code).toBe(Code.InvalidArgument);
      expect(common.rawMessage).toMatch(/^new_password: .*common/);
      expect(await written()).toEqual(before);
      await sessionCookie(api.baseUrl, person.email, person.password);
    });

    it("ends every other session of the person on every control plane, keeps the calling one, and records it in each workspace without the password", async () => {
      const person = await createPerson(api, { [ws.slug]: "viewer", [other.slug]: "admin" });
      const calling = await sessionCookie(api.baseUrl, person.email, person.password);
      const elsewhere = await sessionCookie(replica.baseUrl, person.email, person.password);
      expect(await codeOf(accountClient(replica.baseUrl, elsewhere).getProfile({}))).toBe("ok");

      const newPassword = "a brand new passphrase";
      await accountClient(api.baseUrl, calling).changePassword({ currentPassword: person.password, newPassword });

      // Ended on the other control plane too, at once: sessions are read from the database on each call.
      expect(await codeOf(accountClient(replica.baseUrl, elsewhere).getProfile({}))).toBe(Code.Unauthenticated);
      expect(await codeOf(accountClient(api.baseUrl, elsewhere).getProfile({}))).toBe(Code.Unauthenticated);
      expect(await codeOf(accountClient(replica.baseUrl, calling).getProfile({}))).toBe("ok");
      await expect(sessionCookie(api.baseUrl, person.email, person.password)).rejects.toThrow(/401/);
      await sessionCookie(api.baseUrl, person.email, newPassword);

      const entries = await api.db.prisma.auditEntry.findMany({ where: { userId: person.id, method: "account.v1.AccountService/ChangePassword" } });
      expect(entries.map((e) => e.workspaceId).sort()).toEqual(
        (await api.db.prisma.workspace.findMany({ where: { slug: { in: [ws.slug, other.slug] } } })).map((w) => w.id).sort(),
      );
      expect(entries.every((e) => e.actorType === "user" && e.userEmail === person.email && e.targetId === person.id)).toBe(true);
      const recorded = JSON.stringify(entries);
      expect(recorded).not.toContain(newPassword);
      expect(recorded).not.toContain(person.password);
      expect(entries.map((e) => e.changes)).toEqual([{}, {}]);
    });

    it("counts wrong current passwords with sign-in attempts of the account, then refuses both", async () => {
      const person = await createPerson(api, { [ws.slug]: "editor" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      for (let i = 0; i < ACCOUNTS.signInAttemptsPerAccount; i++) {
        expect(await codeOf(c.changePassword({ currentPassword: `wrong guess number ${i}`, newPassword: "a fine new passphrase" }))).toBe(Code.InvalidArgument);
      }
      const refused = await rejection(c.changePassword({ currentPassword: person.password, newPassword: "a fine new passphrase" }));
      expect(refused.code).toBe(Code.ResourceExhausted);
      await expect(sessionCookie(api.baseUrl, person.email, person.password)).rejects.toThrow(/429/);
    });
  });

  describe("sessions", () => {
    it("lists the person's sessions, marking the calling one, and ends another, which is refused at once everywhere", async () => {
      const person = await createPerson(api, { [ws.slug]: "viewer" });
      const first = await sessionCookie(api.baseUrl, person.email, person.password, "first browser");
      const second = await sessionCookie(replica.baseUrl, person.email, person.password, "second browser");
      const c = accountClient(api.baseUrl, first);
      const { sessions } = await c.listSessions({});
      expect(sessions.map((s) => [s.userAgent, s.current, s.address])).toEqual([
        ["first browser", true, "127.0.0.1"],
        ["second browser", false, "127.0.0.1"],
      ]);
      expect(sessions.every((s) => s.createdAt && s.lastSeenAt && s.expiresAt)).toBe(true);

      const secondId = sessions.find((s) => !s.current)!.id;
      await c.endSession({ id: secondId });
      expect(await codeOf(accountClient(replica.baseUrl, second).listSessions({}))).toBe(Code.Unauthenticated);
      expect((await c.listSessions({})).sessions.map((s) => s.id)).toEqual([sessions.find((s) => s.current)!.id]);
      const entry = await api.db.prisma.auditEntry.findFirst({ where: { userId: person.id, method: "account.v1.AccountService/EndSession" } });
      expect(entry).toMatchObject({ targetKind: "UserSession", targetId: secondId });
    });

    it("answers not_found for another person's session, and leaves it open", async () => {
      const me = await createPerson(api, { [ws.slug]: "owner" });
      const them = await createPerson(api, { [ws.slug]: "viewer" });
      const mine = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, me.email, me.password));
      const theirs = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, them.email, them.password));
      const theirId = (await theirs.listSessions({})).sessions[0]!.id;
      expect(await codeOf(mine.endSession({ id: theirId }))).toBe(Code.NotFound);
      expect(await codeOf(theirs.getProfile({}))).toBe("ok");
    });
  });
});
