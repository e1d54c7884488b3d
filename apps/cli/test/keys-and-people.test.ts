import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { enrolSecondFactor, signedInPerson, totpCodeAt, type Person } from "../../control-plane/test/support/people.js";
import { vigil } from "./support/cli.js";

/** `vigil login --email` as a person, `vigil keys create|list` with their session, and what keys and other roles are refused. */
describe.each(BACKENDS)("vigil login --email and keys on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let admin: Person;
  let editor: Person;
  let viewer: Person;
  let home: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
    editor = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    viewer = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "viewer");
  });
  afterAll(() => api?.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "vigil-cli-people-"));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const run = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string) => vigil(args, { HOME: home, SERVICE_API_URL: api.baseUrl, ...env }, input);
  const login = (person: Person) => run(["login", "--email", person.email], {}, `${person.password}\n`);
  const profile = async () => JSON.parse(await readFile(join(home, ".config", "vigil", "config.json"), "utf8"));
  const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const done = await run(args, env);
    expect(done).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(done.stdout);
  };

  it("signs an admin in with the password from stdin, saves the session and never the password", async () => {
    const done = await login(admin);
    expect(done).toMatchObject({ code: 0, stderr: "" });
    expect(done.stdout).toContain(admin.email);
    const saved = await profile();
    expect(saved).toEqual({ session: expect.any(String), apiUrl: api.baseUrl });
    expect(JSON.stringify(saved)).not.toContain(admin.password);
    expect((await json(["whoami", "-o", "json"])).actor).toEqual(expect.objectContaining({ type: "user", email: admin.email, role: "admin" }));
  });

  it("refuses a wrong password and saves nothing", async () => {
    const done = await run(["login", "--email", admin.email], {}, "not the password\n");
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("wrong email or password");
    await expect(profile()).rejects.toThrow(/ENOENT/);
  });

  it("asks a person with a second factor for its code (the second line of stdin), or takes it from --totp; without one it saves nothing", async () => {
    const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
    const { secret, recoveryCodes } = await enrolSecondFactor(api.baseUrl, `vigil_session=${person.token}`);
    const missing = await run(["login", "--email", person.email], {}, `${person.password}\n`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("second factor");
    await expect(profile()).rejects.toThrow(/ENOENT/);

    const asked = await run(["login", "--email", person.email], {}, `${person.password}\n${totpCodeAt(secret, Date.now() + 30_000)}\n`);
    expect(asked).toMatchObject({ code: 0, stderr: "" });
    expect((await json(["whoami", "-o", "json"])).actor).toEqual(expect.objectContaining({ type: "user", email: person.email }));

    const flagged = await run(["login", "--email", person.email, "--totp", recoveryCodes[0]!], {}, `${person.password}\n`);
    expect(flagged).toMatchObject({ code: 0, stderr: "" });
    const spent = await run(["login", "--email", person.email, "--totp", recoveryCodes[0]!], {}, `${person.password}\n`);
    expect(spent.code).toBe(1);
    expect(spent.stderr).toContain("wrong email or password");
  });

  it("creates keys that work at once, and lists them with who made them", async () => {
    expect((await login(admin)).code).toBe(0);
    const created = await json(["keys", "create", "--name", "ci", "--scope", "write", "--expires", new Date(Date.now() + 86_400_000).toISOString(), "--json"]);
    expect(created).toEqual({ key: expect.stringMatching(/^vgl_/), apiKey: expect.objectContaining({ name: "ci", scopes: ["write"], expiresAt: expect.any(String) }) });
    expect((await json(["whoami", "-o", "json", "--api-key", created.key])).actor).toEqual({ type: "apiKey", keyId: created.apiKey.id, scopes: ["write"] });
    expect((await run(["monitors", "list"], { SERVICE_API_KEY: created.key })).code).toBe(0);

    const shown = await run(["keys", "create", "--name", "dashboards", "--scope", "read"]);
    expect(shown).toMatchObject({ code: 0, stderr: "" });
    expect(shown.stdout).toMatch(/^vgl_\S+$/m);
    expect(shown.stdout).toContain("not shown again");

    const table = await run(["keys", "list"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    expect(table.stdout.split("\n")[0]!.split(/\s{2,}/)).toEqual(["ID", "NAME", "PREFIX", "SCOPE", "CREATED BY", "CREATED", "LAST USED", "EXPIRES"]);
    const ciRow = table.stdout.split("\n").find((line) => line.startsWith(created.apiKey.id))!;
    expect(ciRow).toContain(admin.email);
    expect(ciRow).toContain(created.apiKey.expiresAt.slice(0, 10));
    expect(table.stdout).not.toContain(created.key);

    const listed = await json(["keys", "list", "--json"]);
    expect(listed.apiKeys.map((k: { id: string }) => k.id)).toEqual(expect.arrayContaining([ws.write.id, created.apiKey.id]));
  });

  it("an API key, from the flag or SERVICE_API_KEY, wins over the saved session, and cannot create or list keys", async () => {
    expect((await login(admin)).code).toBe(0);
    expect((await json(["whoami", "-o", "json"], { SERVICE_API_KEY: ws.read.key })).actor.keyId).toBe(ws.read.id);
    for (const args of [["keys", "list"], ["keys", "create", "--name", "by a key", "--scope", "read"]]) {
      const refused = await run([...args, "--api-key", ws.write.key]);
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toContain("permission denied: this needs an admin's or owner's role; no API key may do it");
      // A read key is refused a change before the service asks for more.
      const byReadKey = await run(args, { SERVICE_API_KEY: ws.read.key });
      expect(byReadKey.code).toBe(1);
      expect(byReadKey.stderr).toMatch(/permission denied: this needs an admin's or owner's role|needs an API key with the write scope/);
    }
  });

  it("refuses editors' and viewers' sessions", async () => {
    for (const person of [editor, viewer]) {
      expect((await login(person)).code).toBe(0);
      const refused = await run(["keys", "list"]);
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toContain(`permission denied: this needs an admin's or owner's role (you are ${person === editor ? "editor" : "viewer"} in ${ws.slug})`);
    }
  });

  it("logout ends the saved session on the server", async () => {
    expect((await login(admin)).code).toBe(0);
    const { session } = await profile();
    const whoamiWith = () => api.fetch("/v1/whoami", { headers: { cookie: `vigil_session=${session}` } });
    expect((await whoamiWith()).status).toBe(200);
    const done = await run(["logout"]);
    expect(done).toMatchObject({ code: 0, stderr: "" });
    expect(done.stdout).toContain("ended its session");
    expect((await whoamiWith()).status).toBe(401);
    await expect(profile()).rejects.toThrow(/ENOENT/);
  });
});
