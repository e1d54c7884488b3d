import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { signedInPerson, type Person } from "../../control-plane/test/support/people.js";
import { vigil } from "./support/cli.js";

/** `vigil sso get|set` as a workspace's owner, with their session. */
describe.each(BACKENDS)("vigil sso on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let owner: Person;
  let admin: Person;
  let home: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    owner = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "owner");
    admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
  });
  afterAll(() => api?.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "vigil-cli-sso-"));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const run = (args: string[], input?: string) => vigil(args, { HOME: home, SERVICE_API_URL: api.baseUrl }, input);
  const login = (person: Person) => run(["login", "--email", person.email], `${person.password}\n`);
  const json = async (args: string[], input?: string) => {
    const done = await run(args, input);
    expect(done).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(done.stdout);
  };

  it("sets the settings with the secret from stdin, changes one setting keeping the others, and never prints the secret", async () => {
    expect((await login(owner)).code).toBe(0);
    const secret = "a-client-secret-from-stdin";
    const set = await json(
      ["sso", "set", "--issuer", "https://idp.example.com", "--client-id", "vigil", "--client-secret", "--allowed-domains", "example.com,example.org", "--role-claim", "groups", "--map", "ops=admin", "--map", "dev=editor", "--enabled", "-o", "json"],
      `${secret}\n`,
    );
    expect(set.settings).toEqual(expect.objectContaining({ issuerUrl: "https://idp.example.com", clientSecretSet: true, allowedDomains: ["example.com", "example.org"], roleMapping: { ops: "admin", dev: "editor" }, enabled: true }));
    await json(["sso", "set", "--enforced", "-o", "json"]);
    const got = await run(["sso", "get", "-o", "json"]);
    expect(got.stdout).not.toContain(secret);
    expect(JSON.parse(got.stdout)).toEqual({
      settings: expect.objectContaining({ issuerUrl: "https://idp.example.com", clientId: "vigil", clientSecretSet: true, roleMapping: { ops: "admin", dev: "editor" }, enabled: true, enforced: true, defaultRole: "viewer" }),
      redirectUri: "https://vigil.test/v1/auth/oidc/callback",
      signInUrl: `https://vigil.test/v1/auth/oidc/${ws.slug}/start`,
    });
    const table = await run(["sso", "get"]);
    expect(table.stdout).toContain("redirectUri");
    expect(table.stdout).not.toContain(secret);
    // The owner's password session may still turn enforcement off.
    const relaxed = (await json(["sso", "set", "--no-enforced", "-o", "json"])).settings;
    expect([relaxed.enforced ?? false, relaxed.enabled]).toEqual([false, true]);
  });

  it("names the rule a setting breaks, and refuses an admin", async () => {
    expect((await login(owner)).code).toBe(0);
    const bad = await run(["sso", "set", "--issuer", "http://idp.example.com", "--client-id", "vigil", "--default-role", "viewer"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("settings.issuer_url: must be an https:// URL");
    expect((await login(admin)).code).toBe(0);
    const refused = await run(["sso", "get"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("an owner's role");
  });
});
