import { Code } from "@connectrpc/connect";
import { SESSION_COOKIE } from "@vigil/domain";
import { MonitorService, Periodicity } from "@vigil/proto";
import { AccountService, MemberService } from "@vigil/proto/account";
import { UserSessions } from "../src/accounts/sessions";
import { VerifiedSessions } from "../src/accounts/verified-sessions";
import { NotificationService } from "@vigil/proto/notification";
import { BACKENDS, jsonOf, openTestDatabase, startTestApi, type Replica, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel } from "./support/channels";
import { codeOf } from "./support/codes";
import { GOOD_PASSWORD, sessionCookie, sessionClient, signedInPerson, type Person } from "./support/people";

const monitor = { monitor: { name: "theirs", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } };

/**
 * A person's session on two control planes of one deployment (the same
 * database and Redis; on PostgreSQL, each with its own connections), and a
 * session kept to the workspaces its person belongs to.
 */
describe.each(BACKENDS)("sessions across control planes and workspaces on %s", (backend) => {
  let api: TestApi;
  let replica: Replica;
  let ws: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi(backend);
    replica = await api.startReplica(undefined, { ownConnections: backend === "postgres" });
    ws = await api.workspace();
  });
  afterAll(async () => {
    await replica?.close();
    await api?.close();
  });

  /** A second session of `person`, signed in on the other control plane: its token. */
  const secondSession = async (person: Person) => (await sessionCookie(replica.baseUrl, person.email, person.password)).slice(SESSION_COOKIE.length + 1);
  const listOn = (baseUrl: string, token: string) => codeOf(sessionClient(MonitorService, baseUrl, token).listMonitors({}));

  const endings: [string, (person: Person, ended: string) => Promise<unknown>][] = [
    ["signing out", (_person, ended) => fetch(`${api.baseUrl}/v1/auth/sign-out`, { method: "POST", headers: { cookie: `${SESSION_COOKIE}=${ended}` } })],
    [
      "EndSession from another session",
      async (person, ended) => {
        const account = sessionClient(AccountService, api.baseUrl, person.token);
        const other = (await account.listSessions({})).sessions.find((s) => !s.current);
        await account.endSession({ id: other!.id });
        expect(await listOn(api.baseUrl, ended)).toBe(Code.Unauthenticated);
      },
    ],
    [
      "ChangePassword from another session",
      (person) => sessionClient(AccountService, api.baseUrl, person.token).changePassword({ currentPassword: person.password, newPassword: `${GOOD_PASSWORD}-renewed` }),
    ],
  ];

  it.each(endings)("refuses a session on control plane B at once after %s on A", async (_how, end) => {
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    const ended = await secondSession(person);
    expect(await listOn(replica.baseUrl, ended)).toBe("ok");
    expect(await listOn(api.baseUrl, ended)).toBe("ok");

    await end(person, ended);

    expect(await listOn(replica.baseUrl, ended)).toBe(Code.Unauthenticated);
    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, ended).createHTTPMonitor(monitor))).toBe(Code.Unauthenticated);
    const whoami = await fetch(`${replica.baseUrl}/v1/whoami`, { headers: { cookie: `${SESSION_COOKIE}=${ended}` } });
    expect(whoami.status).toBe(401);
  });

  it("applies a role change on control plane B at once", async () => {
    const owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    const editor = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    // The replica holds the editor's copy: a change it is allowed.
    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, editor.token).createHTTPMonitor(monitor))).not.toBe(Code.PermissionDenied);
    await sessionClient(MemberService, api.baseUrl, owner.token).updateMemberRole({ id: editor.userId, role: "viewer" });
    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, editor.token).createHTTPMonitor(monitor))).toBe(Code.PermissionDenied);
    const whoami = await jsonOf(await fetch(`${replica.baseUrl}/v1/whoami`, { headers: { cookie: `${SESSION_COOKIE}=${editor.token}` } }));
    expect(whoami.actor).toEqual(expect.objectContaining({ type: "user", role: "viewer", scopes: ["read"] }));
  });

  it("refuses a removed member in that workspace on control plane B at once", async () => {
    const owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    const viewer = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
    expect(await listOn(replica.baseUrl, viewer.token)).toBe("ok");
    await sessionClient(MemberService, api.baseUrl, owner.token).removeMember({ id: viewer.userId });
    expect(await listOn(replica.baseUrl, viewer.token)).toBe(Code.PermissionDenied);
  });

  it("keeps a person to their workspaces: naming another is refused, and its monitors and channels are not found from their own", async () => {
    const theirs = await api.workspace();
    const monitorId = (await api.client(theirs.write.key).createHTTPMonitor(monitor)).monitor!.id;
    const channelId = (await api.notificationClient(theirs.write.key).createNotification({ notification: channel("webhook") })).notification!.id;
    const owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    const before = await api.db.prisma.monitor.count({ where: { workspace: { slug: theirs.slug } } });

    for (const baseUrl of [api.baseUrl, replica.baseUrl]) {
      const naming = { workspace: theirs.slug };
      expect(await codeOf(sessionClient(MonitorService, baseUrl, owner.token, naming).getMonitor({ id: monitorId }))).toBe(Code.PermissionDenied);
      expect(await codeOf(sessionClient(MonitorService, baseUrl, owner.token, naming).listMonitors({}))).toBe(Code.PermissionDenied);
      expect(await codeOf(sessionClient(MonitorService, baseUrl, owner.token, naming).createHTTPMonitor(monitor))).toBe(Code.PermissionDenied);
      expect(await codeOf(sessionClient(MonitorService, baseUrl, owner.token, naming).deleteMonitor({ id: monitorId }))).toBe(Code.PermissionDenied);

      const own = sessionClient(MonitorService, baseUrl, owner.token);
      expect(await codeOf(own.getMonitor({ id: monitorId }))).toBe(Code.NotFound);
      expect(await codeOf(own.deleteMonitor({ id: monitorId }))).toBe(Code.NotFound);
      expect((await own.listMonitors({})).httpMonitors.map((m) => m.id)).not.toContain(monitorId);
      expect(await codeOf(sessionClient(NotificationService, baseUrl, owner.token).getNotification({ id: channelId }))).toBe(Code.NotFound);
    }
    expect(await api.db.prisma.monitor.count({ where: { workspace: { slug: theirs.slug } } })).toBe(before);
  });

  it("acts with the role of the workspace named: a viewer there may not change what they may change where they edit", async () => {
    const theirs = await api.workspace();
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    const workspace = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: theirs.slug } });
    await api.db.prisma.membership.create({ data: { workspaceId: workspace.id, userId: person.userId, role: "viewer" } });

    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, person.token, { workspace: theirs.slug }).listMonitors({}))).toBe("ok");
    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, person.token, { workspace: theirs.slug }).createHTTPMonitor(monitor))).toBe(Code.PermissionDenied);
    expect(await codeOf(sessionClient(MonitorService, replica.baseUrl, person.token, { workspace: ws.slug }).createHTTPMonitor(monitor))).toBe("ok");
    expect(await api.db.prisma.monitor.count({ where: { workspaceId: workspace.id } })).toBe(0);
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
    sessions = new UserSessions(db.prisma, new VerifiedSessions(db.prisma, clock), { announcePerson: async () => {}, announceWorkspace: async () => {} }, { settings: { idleDays: 7, maxDays: 30 }, ...clock });
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
