import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil } from "./support/cli.js";

/** A port nothing listens on: a command that succeeds did not send its calls there. */
const NOWHERE = "http://127.0.0.1:9";

/** Where settings come from (flags, environment, `vigil login` profile), and what each exit code says. */
describe("vigil settings, login and exit codes", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
  });
  afterAll(() => api?.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "vigil-cli-home-"));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const keyIdOf = async (args: string[], env: NodeJS.ProcessEnv) => {
    const run = await vigil([...args, "-o", "json"], { HOME: home, ...env });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(run.stdout).actor.keyId as string;
  };
  const login = (key: string, url = api.baseUrl) => vigil(["login", "--api-key", key, "--api-url", url], { HOME: home });

  describe("precedence: flag > environment > profile > default", () => {
    it("the environment alone", async () => {
      expect(await keyIdOf(["whoami"], { SERVICE_API_KEY: ws.read.key, SERVICE_API_URL: api.baseUrl })).toBe(ws.read.id);
    });

    it("flags win over the environment, before or after the subcommand", async () => {
      const env = { SERVICE_API_KEY: ws.read.key, SERVICE_API_URL: NOWHERE };
      expect(await keyIdOf(["--api-key", ws.write.key, "--api-url", api.baseUrl, "whoami"], env)).toBe(ws.write.id);
      expect(await keyIdOf(["whoami", "--api-key", ws.write.key, "--api-url", api.baseUrl], env)).toBe(ws.write.id);
      const list = await vigil(["monitors", "list", "--api-url", api.baseUrl, "--output", "json", "--api-key", ws.write.key], env);
      expect(list).toMatchObject({ code: 0, stdout: expect.stringContaining("{") });
    });

    it("the environment wins over the profile, which wins over the default", async () => {
      expect((await login(ws.read.key)).code).toBe(0);
      expect(await keyIdOf(["whoami"], {})).toBe(ws.read.id);
      expect(await keyIdOf(["whoami"], { SERVICE_API_KEY: ws.write.key })).toBe(ws.write.id);
      const elsewhere = await vigil(["whoami"], { HOME: home, SERVICE_API_URL: NOWHERE });
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toContain(`cannot reach the API at ${NOWHERE}`);
    });

    it("without a key anywhere, says where to put one", async () => {
      const run = await vigil(["whoami"], { HOME: home, SERVICE_API_URL: api.baseUrl });
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toBe("vigil: no API key: pass --api-key, set SERVICE_API_KEY or run `vigil login`.\n");
    });
  });

  describe("login and logout", () => {
    it("login checks the key and saves it in ~/.config/vigil/config.json, readable by its owner only", async () => {
      const run = await login(ws.write.key);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const path = join(home, ".config", "vigil", "config.json");
      expect(run.stdout).toContain(`logged in to ${ws.slug}; the key and address are saved in ${path}`);
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ apiKey: ws.write.key, apiUrl: api.baseUrl });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    });

    it("uses $XDG_CONFIG_HOME when set, reads the key from stdin, and answers JSON", async () => {
      const xdg = join(home, "xdg");
      const run = await vigil(["login", "--api-url", api.baseUrl, "-o", "json"], { HOME: home, XDG_CONFIG_HOME: xdg }, `${ws.read.key}\n`);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const path = join(xdg, "vigil", "config.json");
      expect(JSON.parse(run.stdout)).toMatchObject({ profile: path, apiUrl: api.baseUrl, slug: ws.slug, actor: { keyId: ws.read.id } });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await keyIdOf(["whoami"], { XDG_CONFIG_HOME: xdg })).toBe(ws.read.id);
    });

    it("a refused key is not saved", async () => {
      const run = await login("vgl_not-a-key");
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("the API key was refused");
      expect(existsSync(join(home, ".config", "vigil", "config.json"))).toBe(false);
    });

    it("logout removes the profile", async () => {
      await login(ws.write.key);
      const run = await vigil(["logout"], { HOME: home });
      expect(run).toMatchObject({ code: 0, stdout: `removed the saved profile ${join(home, ".config", "vigil", "config.json")}\n` });
      expect(existsSync(join(home, ".config", "vigil", "config.json"))).toBe(false);
      expect(JSON.parse((await vigil(["logout", "-o", "json"], { HOME: home })).stdout)).toMatchObject({ removed: false });
      expect((await vigil(["whoami"], { HOME: home })).code).toBe(1);
    });
  });

  describe("exit codes", () => {
    const env = (key = ws.write.key) => ({ HOME: home, SERVICE_API_KEY: key, SERVICE_API_URL: api.baseUrl });

    it("0 for help, which documents the exit codes", async () => {
      const run = await vigil(["--help"], env());
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Exit codes:\n {2}0 {2}success\n {2}1 {2}error[^]*\n {2}2 {2}usage error[^]*--detailed-exitcode/);
    });

    it.each([
      [["bogus"], "unknown command 'bogus'"],
      [["monitors", "list", "--bogus"], "unknown option '--bogus'"],
      [["monitors", "get"], "missing required argument 'id'"],
      [["monitors", "create", "http", "--periodicity", "2m"], "'--periodicity <every>' argument '2m' is invalid. must be one of 30s, 1m"],
      [["monitors", "summary", "x", "--range", "2d"], "must be one of 1d, 7d, 14d"],
      [["-o", "xml", "whoami"], "--output must be one of table, json, yaml, not xml"],
      [[], "Usage: vigil"],
    ])("2 for a usage error: %j", async (args, message) => {
      const run = await vigil(args, env());
      expect(run).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr).toContain(message);
    });

    it("1 for an unknown id: not found", async () => {
      const run = await vigil(["monitors", "get", "01a2096f-554e-71e0-a95a-570ecbf34664"], env());
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toMatch(/^vigil: not found: .*\n$/);
    });

    it("1 for a refused key", async () => {
      const run = await vigil(["monitors", "list"], env("vgl_wrong"));
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toMatch(/^vigil: the API key was refused by http:\/\/127\.0\.0\.1:\d+ \(.*\): pass --api-key/);
    });

    it("1 for a read key on a change: it needs a write key", async () => {
      const run = await vigil(["monitors", "create", "tcp", "--name", "db", "--uri", "127.0.0.1:5432", "--periodicity", "1m"], env(ws.read.key));
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toContain("needs a write key");
    });

    it("1 for invalid fields, each listed with its rule", async () => {
      const run = await vigil(["monitors", "create", "http", "--name", "x", "--url", "nope", "--periodicity", "1m", "--timeout", "999999"], env());
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toMatch(/^vigil: the request was rejected:\n/);
      expect(run.stderr).toMatch(/^ {2}monitor\.url: .+$/m);
      expect(run.stderr).toMatch(/^ {2}monitor\.timeout: .+$/m);
    });

    it("1 for a --from-json file that is missing or not the API's JSON form", async () => {
      const missing = await vigil(["monitors", "create", "http", "--from-json", join(home, "none.json")], env());
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining("cannot read --from-json") });
      const wrong = await vigil(["monitors", "create", "tcp", "--from-json", "-"], env(), '{"url": "https://example.com"}');
      expect(wrong).toMatchObject({ code: 1, stderr: expect.stringContaining("does not fit the API's JSON form") });
    });
  });
});
