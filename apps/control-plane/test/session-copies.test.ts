import { Code } from "@connectrpc/connect";
import { AccountService, MemberService } from "@vigil/proto/account";
import { MonitorService, Periodicity } from "@vigil/proto";
import { UserSessions } from "../src/accounts/sessions";
import { VerifiedSessions } from "../src/accounts/verified-sessions";
import { BACKENDS, jsonOf, openTestDatabase, startTestApi, type Replica, type TestApi } from "./support/api";
import { codeOf } from "./support/codes";
import { sessionClient, signedInPerson } from "./support/people";

// A control plane answers sessions from short-lived copies (accounts/verified-sessions.ts). These tests
// make the other control plane hold a copy first, then change the session or the person's memberships
// through the first one, and expect the very next call to the other to see the change.
describe.each(BACKENDS)("session copies across control planes on %s (real Redis)", (backend) => {
  let api: TestApi;
  let replica: Replica;

  beforeAll(async () => {
    api = await startTestApi(backend);
    replica = await api.startReplica();
  });
  afterAll(async () => {
    await replica.close();
    await api.close();
  });

  const whoamiOn = (baseUrl: string, token: string) => fetch(`${baseUrl}/v1/whoami`, { headers: { cookie: `vigil_session=${token}` } });
  const monitorsOn = (baseUrl: string, token: string) => sessionClient(MonitorService, baseUrl, token);
  const createOn = (baseUrl: string, token: string) =>
    codeOf(monitorsOn(baseUrl, token).createHTTPMonitor({ monitor: { name: "copy", url: "https://example.com", periodicity: Periodicity.PERIODICITY_5M } }));

  it("refuses a session on the other control plane on the very next call after it signs out", async () => {
    const ws = await api.workspace();
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
    expect((await whoamiOn(replica.baseUrl, person.token)).status).toBe(200);
    const out = await api.fetch("/v1/auth/sign-out", { method: "POST", headers: { cookie: `vigil_session=${person.token}` } });
    expect(out.status).toBe(200);
    expect((await whoamiOn(replica.baseUrl, person.token)).status).toBe(401);
  });

  /** A second session of the same person: its token. */
  const signInAgain = async (email: string, password: string) => {
    const res = await fetch(`${api.baseUrl}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
    expect(res.status).toBe(200);
    return /^vigil_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  };

  it("refuses the person's other sessions on the other control plane at once after a password change", async () => {
    const ws = await api.workspace();
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    const someoneElse = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    const second = await signInAgain(person.email, person.password);
    for (const token of [person.token, second, someoneElse.token]) expect((await whoamiOn(replica.baseUrl, token)).status).toBe(200);
    await sessionClient(AccountService, api.baseUrl, second).changePassword({ currentPassword: person.password, newPassword: "a-new-and-long-passphrase-77" });
    expect((await whoamiOn(replica.baseUrl, person.token)).status).toBe(401);
    // The session that changed it stays, and nobody else's is touched.
    expect((await whoamiOn(replica.baseUrl, second)).status).toBe(200);
    expect((await whoamiOn(replica.baseUrl, someoneElse.token)).status).toBe(200);
  });

  it("applies a role change on the other control plane at once", async () => {
    const ws = await api.workspace();
    const owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    const editor = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    // The replica holds the editor's copy: a change it is allowed.
    expect(await createOn(replica.baseUrl, editor.token)).not.toBe(Code.PermissionDenied);
    await sessionClient(MemberService, api.baseUrl, owner.token).updateMemberRole({ id: editor.userId, role: "viewer" });
    expect(await createOn(replica.baseUrl, editor.token)).toBe(Code.PermissionDenied);
    const whoami = await jsonOf(await whoamiOn(replica.baseUrl, editor.token));
    expect(whoami.actor).toEqual(expect.objectContaining({ type: "user", role: "viewer", scopes: ["read"] }));
  });

  it("refuses a removed member in that workspace on the other control plane at once", async () => {
    const ws = await api.workspace();
    const owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    const viewer = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
    expect(await codeOf(monitorsOn(replica.baseUrl, viewer.token).listMonitors({}))).toBe("ok");
    await sessionClient(MemberService, api.baseUrl, owner.token).removeMember({ id: viewer.userId });
    expect(await codeOf(monitorsOn(replica.baseUrl, viewer.token).listMonitors({}))).toBe(Code.PermissionDenied);
  });

  it("refuses a session ended from another one on the other control plane at once", async () => {
    const ws = await api.workspace();
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
    expect((await whoamiOn(replica.baseUrl, person.token)).status).toBe(200);
    // The person signs in again and ends the first session from the second.
    const token = await signInAgain(person.email, person.password);
    const account = sessionClient(AccountService, api.baseUrl, token);
    const first = (await account.listSessions({})).sessions.find((s) => !s.current)!;
    await account.endSession({ id: first.id });
    expect((await whoamiOn(replica.baseUrl, person.token)).status).toBe(401);
    expect((await whoamiOn(replica.baseUrl, token)).status).toBe(200);
  });
});

describe.each(BACKENDS)("session expiry on %s", (backend) => {
  const DAY = 24 * 60 * 60 * 1000;
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let now: number;
  let sessions: UserSessions;
  let userId: string;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    userId = (await db.prisma.user.create({ data: { email: `expiry-${backend}@people.test`, name: "Expiry" } })).id;
  });
  afterAll(() => db.dispose());
  beforeEach(() => {
    now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    // One control plane alone: nothing to tell the others.
    sessions = new UserSessions(db.prisma, new VerifiedSessions(db.prisma, clock), { announcePerson: async () => {} }, { settings: { idleDays: 7, maxDays: 30 }, ...clock });
  });

  const open = () => sessions.open(userId, { userAgent: "test", address: "127.0.0.1" });
  const statusOf = async (token: string) => (await sessions.lookUp(token, undefined)).status;

  it("ends a session unused for idleDays, and not a moment before", async () => {
    const { token } = await open();
    now += 7 * DAY - 1;
    expect(await statusOf(token)).toBe("not_member");
    // That use moved the idle expiry to a week after it.
    now += 7 * DAY;
    expect(await statusOf(token)).toBe("none");
  });

  it("ends a session maxDays after sign-in however much it is used", async () => {
    const { token } = await open();
    for (let day = 1; day < 30; day++) {
      now = Date.UTC(2026, 0, 1) + day * DAY;
      expect(await statusOf(token)).toBe("not_member");
    }
    now = Date.UTC(2026, 0, 1) + 30 * DAY - 1;
    expect(await statusOf(token)).toBe("not_member");
    now += 1;
    expect(await statusOf(token)).toBe("none");
  });

  it("writes a session's last use once a minute at most", async () => {
    const { token, sessionId: id } = await open();
    const lastSeen = async () => (await db.prisma.userSession.findUniqueOrThrow({ where: { id } })).lastSeenAt.getTime();
    const opened = await lastSeen();
    now = opened + 59_999;
    await statusOf(token);
    expect(await lastSeen()).toBe(opened);
    now = opened + 60_000;
    await statusOf(token);
    expect(await lastSeen()).toBe(now);
  });
});
