import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { signedInPerson, type Person } from "../../control-plane/test/support/people.js";
import { startMailbox } from "../../control-plane/test/support/page-access.js";
import { vigil } from "./support/cli.js";

/** `vigil members` with a person's session from `vigil login --email`: listing, inviting, roles, removing, invitations. */
describe.each(BACKENDS)("vigil members on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let admin: Person;
  let home: string;

  beforeAll(async () => {
    mailbox = await startMailbox();
    api = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url } });
    ws = await api.workspace();
    // A workspace always keeps an owner, so that roles may change below the owner's.
    await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
  });
  afterAll(async () => {
    await api?.close();
    await mailbox?.close();
  });
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "vigil-cli-members-"));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const run = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string) => vigil(args, { HOME: home, SERVICE_API_URL: api.baseUrl, ...env }, input);
  const login = async (person: Person) => expect(await run(["login", "--email", person.email], {}, `${person.password}\n`)).toMatchObject({ code: 0 });
  const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const done = await run(args, env);
    expect(done).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(done.stdout);
  };
  const roleOf = async (userId: string) => (await api.db.prisma.membership.findFirst({ where: { userId, workspace: { slug: ws.slug } } }))?.role;

  it("lists the members in a table and as JSON, with a key or a session", async () => {
    await login(admin);
    const table = await run(["members", "list"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["USER ID", "EMAIL", "NAME", "ROLE", "JOINED"]);
    expect(lines.find((line) => line.startsWith(admin.userId))).toMatch(new RegExp(`${admin.email}\\s+admin \\d+\\s+admin\\s+\\d{4}-`));

    for (const args of [["members", "list", "--json"], ["members", "list", "-o", "json"]]) {
      expect((await json(args)).members).toContainEqual(expect.objectContaining({ id: admin.userId, email: admin.email, role: "admin" }));
    }
    expect((await json(["members", "list", "--json"], { SERVICE_API_KEY: ws.read.key })).members.map((m: { id: string }) => m.id)).toContain(admin.userId);
  });

  it("invites by mail, lists the invitation and withdraws it", async () => {
    await login(admin);
    const invited = await run(["members", "invite", "--email", "Grace@Example.com", "--role", "editor"]);
    expect(invited).toMatchObject({ code: 0, stderr: "" });
    expect(invited.stdout).toContain("grace@example.com");
    expect(invited.stdout).toContain("mailed to grace@example.com");
    expect(mailbox.mailsTo("grace@example.com")).toHaveLength(1);

    const { invitations } = await json(["members", "invitations", "--json"]);
    const invitation = invitations.find((i: { email: string }) => i.email === "grace@example.com");
    expect(invitation).toEqual(expect.objectContaining({ role: "editor", invitedBy: admin.userId }));
    expect((await run(["members", "invitations"])).stdout).toContain(invitation.id);

    const revoked = await run(["members", "revoke-invitation", invitation.id]);
    expect(revoked).toMatchObject({ code: 0, stderr: "" });
    expect(revoked.stdout).toContain(`withdrew invitation ${invitation.id}`);
    // JSON leaves out fields at their default: no invitations is no field.
    expect(await json(["members", "invitations", "--json"])).toEqual({});
  });

  it("changes a role and removes a member named by email or by user id", async () => {
    await login(admin);
    const viewer = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
    const promoted = await json(["members", "role", viewer.email.toUpperCase(), "editor", "--json"]);
    expect(promoted.member).toEqual(expect.objectContaining({ id: viewer.userId, role: "editor" }));
    expect(await roleOf(viewer.userId)).toBe("editor");

    const table = await run(["members", "role", viewer.userId, "viewer"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    expect(table.stdout).toMatch(/role\s+viewer/);

    const removed = await run(["members", "remove", viewer.email]);
    expect(removed).toMatchObject({ code: 0, stderr: "" });
    expect(removed.stdout).toContain(`removed ${viewer.email} (${viewer.userId})`);
    expect(await roleOf(viewer.userId)).toBeUndefined();

    const unknown = await run(["members", "remove", viewer.email]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain(`no member of the workspace has the user id or email ${viewer.email}`);
  });

  it("refuses a role or an email the domain does not allow before calling, as a usage error", async () => {
    const audits = await api.db.prisma.auditEntry.count();
    for (const args of [
      ["members", "invite", "--email", "someone@example.com", "--role", "superuser"],
      ["members", "invite", "--email", "not-an-email", "--role", "viewer"],
      ["members", "role", admin.email, "Owner"],
    ]) {
      // No session and no key: a call would be refused with another message and exit code.
      const done = await run(args);
      expect(done).toMatchObject({ code: 2, stdout: "" });
      expect(done.stderr).toMatch(/is invalid( for argument .role.)?\. (must be one of owner, admin, editor, viewer|must be an email address)/);
    }
    expect(await api.db.prisma.auditEntry.count()).toBe(audits);
  });

  it("prints the API's refusal to an editor and to a key, and changes nothing", async () => {
    const editor = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    await login(editor);
    const refused = await run(["members", "role", admin.email, "viewer"]);
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toContain(`permission denied: this needs an admin's or owner's role (you are editor in ${ws.slug})`);
    const byKey = await run(["members", "invite", "--email", "x@example.com", "--role", "viewer", "--api-key", ws.write.key]);
    expect(byKey).toMatchObject({ code: 1, stdout: "" });
    expect(byKey.stderr).toContain("permission denied: this needs an admin's or owner's role; no API key may do it");
    expect(await roleOf(admin.userId)).toBe("admin");
    expect(mailbox.mailsTo("x@example.com")).toEqual([]);
  });
});
