import { Code } from "@connectrpc/connect";
import { secretFingerprint } from "@vigil/domain";
import { Periodicity } from "@vigil/proto";
import { AuditLogService, type AuditLogEntry } from "@vigil/proto/account";
import { rejection } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { personWithRole, sessionClient } from "./support/people";

const PAGE_PASSWORD = "correct horse battery staple";

describe.each(BACKENDS)("ListAuditLogEntries on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let owner: { email: string; token: string; userId: string };
  let writer: { id: string; prefix: string };
  let pageId: string;
  const log = () => sessionClient(AuditLogService, api.baseUrl, owner.token, { workspace: ws.slug });
  const all = async (request: Parameters<ReturnType<typeof log>["listAuditLogEntries"]>[0] = {}) => (await log().listAuditLogEntries(request)).entries;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    owner = await personWithRole(api, ws.slug, "owner");
    const { apiKey, key } = await api.admin.createApiKey({ workspaceSlug: ws.slug, scope: "write", name: "deploy bot" });
    writer = { id: apiKey.id, prefix: apiKey.prefix };
    await api.client(key).createHTTPMonitor({ monitor: { name: "Home", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    const created = await api.statusPageClient(key).createStatusPage({ statusPage: { title: "Acme", slug: `read-${backend}`, accessType: "password", password: PAGE_PASSWORD } });
    pageId = created.statusPage!.id;
    await api.statusPageClient(key).publishStatusPage({ id: pageId });
    // Another workspace's changes, which this workspace's log must not show.
    const other = await api.workspace();
    await api.statusPageClient(other.write.key).createStatusPage({ statusPage: { title: "Other", slug: `other-${backend}` } });
  });
  afterAll(() => api.close());

  const methods = (entries: AuditLogEntry[]) => entries.map((e) => e.method);

  it("answers the workspace's entries newest first, naming the key or the person, the target and the redacted request", async () => {
    const entries = await all();
    expect(methods(entries)).toEqual([
      "status_page.v1.StatusPageService/PublishStatusPage",
      "status_page.v1.StatusPageService/CreateStatusPage",
      "monitor.v1.MonitorService/CreateHTTPMonitor",
      "POST /v1/auth/sign-in",
      "account.v1.MemberService/AcceptInvitation",
    ]);
    const [published, created, , signIn] = entries;
    expect(published).toMatchObject({ actorType: "api_key", apiKeyId: writer.id, apiKeyPrefix: writer.prefix, apiKeyName: "deploy bot", targetKind: "StatusPage", targetId: pageId });
    expect(created!.changes!.statusPage).toMatchObject({ title: "Acme", password: `fingerprint:${secretFingerprint(pageId, PAGE_PASSWORD)}` });
    expect(JSON.stringify(entries.map((e) => e.changes))).not.toContain(PAGE_PASSWORD);
    expect(signIn).toMatchObject({ actorType: "user", userId: owner.userId, userEmail: owner.email });
  });

  it("filters by action (short or full name), actor, target kind and time", async () => {
    expect(methods(await all({ action: "CreateStatusPage" }))).toEqual(["status_page.v1.StatusPageService/CreateStatusPage"]);
    expect(methods(await all({ action: "monitor.v1.MonitorService/CreateHTTPMonitor" }))).toEqual(["monitor.v1.MonitorService/CreateHTTPMonitor"]);
    expect(methods(await all({ action: "StatusPage" }))).toEqual([]);
    expect(await all({ actor: writer.prefix })).toHaveLength(3);
    expect(await all({ actor: writer.id })).toHaveLength(3);
    expect(methods(await all({ actor: owner.email.toUpperCase() }))).toEqual(["POST /v1/auth/sign-in", "account.v1.MemberService/AcceptInvitation"]);
    expect(methods(await all({ targetKind: "StatusPage" }))).toHaveLength(2);
    const newest = (await all())[0]!.at!;
    expect(await all({ since: { seconds: newest.seconds + 1n } })).toEqual([]);
    expect(await all({ until: newest })).toHaveLength(4);
  });

  it("pages with a limit and a cursor, neither repeating nor skipping an entry", async () => {
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await log().listAuditLogEntries({ limit: 1, cursor });
      expect(page.entries.length).toBeLessThanOrEqual(1);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await all()).map((e) => e.id));
  });

  it("refuses bad filters naming the field and the rule", async () => {
    const refused = async (request: Parameters<ReturnType<typeof log>["listAuditLogEntries"]>[0]) => {
      const error = await rejection(log().listAuditLogEntries(request));
      expect(error.code).toBe(Code.InvalidArgument);
      return error.rawMessage;
    };
    expect(await refused({ limit: 0 })).toBe("limit: must be an integer from 1 to 100");
    expect(await refused({ limit: 101 })).toBe("limit: must be an integer from 1 to 100");
    expect(await refused({ cursor: "not a cursor" })).toBe("cursor: must be a next_cursor this API answered");
    expect(await refused({ since: { seconds: 2000n }, until: { seconds: 1000n } })).toBe("until: must not be before since");
    expect(await refused({ actor: "a".repeat(257) })).toBe("actor: must be at most 256 characters");
  });

  it("is refused to roles without the audit permission, and to keys", async () => {
    for (const role of ["editor", "viewer"] as const) {
      const person = await personWithRole(api, ws.slug, role);
      const error = await rejection(sessionClient(AuditLogService, api.baseUrl, person.token, { workspace: ws.slug }).listAuditLogEntries({}));
      expect([error.code, error.rawMessage]).toEqual([Code.PermissionDenied, `this needs an admin's or owner's role (you are ${role} in ${ws.slug})`]);
    }
  });
});
