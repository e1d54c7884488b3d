import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil, type Run } from "./support/cli.js";

/** Credentials inside monitors and channels, which a read key is answered as fingerprints. */
const CREDENTIALS = { URL_PASSWORD: "url-secret-1", API_TOKEN: "Bearer token-secret-2", HOOK_TOKEN: "path-secret-3", HOOK_AUTH: "Basic header-secret-4" };
const SECRET_PARTS = ["url-secret-1", "token-secret-2", "path-secret-3", "header-secret-4"];

const FILE = `
project: creds
monitors:
  web:
    type: http
    name: Site
    url: https://probe:\${URL_PASSWORD}@example.com/health
    periodicity: 1m
    headers:
      - { key: authorization, value: "\${API_TOKEN}" }
notifications:
  hook:
    webhook:
      endpoint: https://hooks.example.com/in/\${HOOK_TOKEN}
      headers:
        - { key: authorization, value: "\${HOOK_AUTH}" }
    monitors: [web]
`;

describe("vigil plan, apply and export with credentials a read key sees as fingerprints", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    dir = await mkdtemp(join(tmpdir(), "vigil-creds-"));
    file = join(dir, "vigil.yaml");
  });
  afterAll(async () => {
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const run = (args: string[], key: string, extra: NodeJS.ProcessEnv = {}) =>
    vigil(args, { HOME: dir, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: key, ...CREDENTIALS, ...extra });
  async function ok(args: string[], key: string, extra?: NodeJS.ProcessEnv): Promise<Run> {
    const result = await run(args, key, extra);
    expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining("vigil:") });
    return result;
  }
  const leaked = (text: string) => SECRET_PARTS.filter((part) => text.includes(part));
  /** What is stored, as a write key reads it. */
  async function stored() {
    const { httpMonitors } = await api.client(ws.write.key).listMonitors({});
    const { notifications } = await api.notificationClient(ws.write.key).listNotifications({});
    return { monitor: httpMonitors[0]!, channel: notifications[0]!.provider.value as { endpoint: string; headers: { key: string; value: string }[] } };
  }

  it("plans no change with a read key for a file that holds the stored values, and shows a changed credential only as fingerprints", async () => {
    await writeFile(file, FILE);
    await ok(["apply", "-f", file], ws.write.key);
    for (const key of [ws.read.key, ws.write.key]) {
      expect((await ok(["plan", "-f", file, "--detailed-exitcode"], key)).stdout).toContain("No changes");
    }
    for (const key of [ws.read.key, ws.write.key]) {
      const plan = await run(["plan", "-f", file], key, { API_TOKEN: "Bearer rotated-secret-5", HOOK_TOKEN: "rotated-secret-6" });
      expect(plan.stdout).toContain("~ monitors.web\n      headers: ");
      expect(plan.stdout).toContain("~ notifications.hook\n      webhook.endpoint: ");
      expect(plan.stdout).toContain('"fingerprint:');
      expect([...leaked(plan.stdout), ...["rotated-secret-5", "rotated-secret-6"].filter((part) => plan.stdout.includes(part))]).toEqual([]);
    }
  });

  it("exports with a read key the fingerprints in place of the credentials, saying so, as a file whose plan is empty with either key", async () => {
    const exported = (await ok(["export", "--project", "creds"], ws.read.key)).stdout;
    expect(leaked(exported)).toEqual([]);
    const parsed = parse(exported);
    expect(parsed.monitors.web.url).toMatch(/^https:\/\/fingerprint:[0-9a-f]{16}@example\.com\/health$/);
    expect(parsed.monitors.web.headers[0].value).toMatch(/^fingerprint:[0-9a-f]{16}$/);
    expect(parsed.notifications.hook.webhook.endpoint).toMatch(/^https:\/\/hooks\.example\.com\/fingerprint:[0-9a-f]{16}$/);
    expect(exported).toContain("# url, headers[0].value: fingerprints of credentials");
    expect(exported).toContain("# webhook.endpoint, webhook.headers[0].value: fingerprints of credentials");
    await writeFile(file, exported);
    for (const key of [ws.read.key, ws.write.key]) {
      expect((await ok(["plan", "-f", file, "--detailed-exitcode"], key)).stdout).toContain("No changes");
    }
  });

  it("applies a read key's export with a write key, keeping the credentials its fingerprints stand for", async () => {
    const before = await stored();
    const exported = (await ok(["export", "--project", "creds"], ws.read.key)).stdout;
    const changed = exported
      .replace("name: Site", "name: Site renamed")
      .replace(/(headers:\n(\s+)- key: authorization\n\s+value: fingerprint:[0-9a-f]{16}\n)/, "$1$2- key: x-extra\n$2  value: plain\n");
    expect(changed).toContain("x-extra");
    await writeFile(file, changed);
    const applied = await ok(["apply", "-f", file], ws.write.key);
    expect(applied.stdout).toContain("Applied: 0 created, 1 changed");
    const after = await stored();
    expect(after.monitor).toMatchObject({
      name: "Site renamed",
      url: before.monitor.url,
      headers: [{ key: "authorization", value: CREDENTIALS.API_TOKEN }, { key: "x-extra", value: "plain" }],
    });
    expect(after.channel).toEqual(before.channel);
  });

  it("refuses, before any change, a fingerprint that stands for no stored value", async () => {
    const exported = (await ok(["export", "--project", "creds"], ws.read.key)).stdout;
    // Another project: every entry is new, so no fingerprint can stand for a stored value.
    await writeFile(file, exported.replace("project: creds", "project: copy"));
    const before = await stored();
    for (const command of ["plan", "apply"]) {
      const refused = await run([command, "-f", file], ws.write.key);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("monitors.web.url: is a fingerprint of a credential, which stands for no value stored here: give the value itself");
      expect(refused.stderr).toContain("monitors.web.headers[0].value: is a fingerprint");
      expect(refused.stderr).toContain("notifications.hook.webhook.endpoint: is a fingerprint");
    }
    expect((await api.client(ws.write.key).listMonitors({})).totalSize).toBe(1);
    expect(await stored()).toEqual(before);
  });
});
