import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { fileSchemaValidator } from "./support/file-schema.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { ENTRY_KEY_MAX_CHARS, jsonComparatorCodec } from "@vigil/domain";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil, type Run } from "./support/cli.js";

const SLACK = "https://hooks.slack.com/services/T0001/B0001/first-secret-value";
const SLACK_ROTATED = "https://hooks.slack.com/services/T0001/B0001/second-secret-value";

/** The file of the first apply: every kind of entry, a secret from the environment, references by key. */
const FILE = `
# yaml-language-server: $schema=./vigil.schema.json
project: shop
monitors:
  web:
    type: http
    name: Storefront
    url: https://shop.example.com/health
    periodicity: 1m
    traceHeader: false
    certificateExpiryDays: 30
    regions: [hostA-ams, hostA-iad]
    statusCodeAssertions:
      - { comparator: eq, target: 200 }
    jsonBodyAssertions:
      - { path: $.status, comparator: eq, target: ok }
      - { path: "$..error", comparator: not_exists }
  db:
    type: tcp
    name: Database
    uri: db.example.com:5432
    periodicity: 30s
  dns:
    type: dns
    name: Name servers
    uri: shop.example.com
    periodicity: 5m
    recordAssertions:
      - { record: A, comparator: eq, target: 192.0.2.10 }
notifications:
  ops:
    name: Ops room
    reminderMinutes: 30
    slack:
      webhookUrl: \${SLACK_WEBHOOK}
    monitors: [web, db]
  hook:
    webhook:
      endpoint: http://127.0.0.1:9/hook
    monitors: [dns]
statusPages:
  public:
    title: Shop status
    slug: shop-status-SUFFIX
    groups:
      core: { name: Core }
    components:
      web: { type: monitor, monitor: web, group: core, order: 1 }
      db: { type: monitor, monitor: db, name: Database, group: core, order: 2 }
      note: { type: static, name: Payments by our partner, order: 3 }
  staff:
    title: Staff status
    slug: staff-status-SUFFIX
    accessType: password
    password: \${STAFF_PASSWORD}
    language: de
    published: false
    subscriptionsEnabled: false
`;

describe("vigil plan, apply and export", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let dir: string;
  let file: string;
  let text: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    dir = await mkdtemp(join(tmpdir(), "vigil-code-"));
    file = join(dir, "vigil.yaml");
    text = FILE.replaceAll("SUFFIX", ws.slug);
  });
  afterAll(async () => {
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const env = (extra: NodeJS.ProcessEnv = {}, key = ws.write.key): NodeJS.ProcessEnv => ({
    HOME: dir,
    SERVICE_API_URL: api.baseUrl,
    SERVICE_API_KEY: key,
    SLACK_WEBHOOK: SLACK,
    STAFF_PASSWORD: "correct horse",
    ...extra,
  });
  const run = (args: string[], extra?: NodeJS.ProcessEnv, key?: string) => vigil(args, env(extra, key));
  async function ok(args: string[], extra?: NodeJS.ProcessEnv): Promise<Run> {
    const result = await run(args, extra);
    expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining("vigil:") });
    return result;
  }
  const write = (content: string) => writeFile(file, content);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const planJson = async (extra?: NodeJS.ProcessEnv): Promise<any> => JSON.parse((await ok(["plan", "-f", file, "-o", "json"], extra)).stdout);
  const client = () => ({ monitors: api.client(ws.write.key), notifications: api.notificationClient(ws.write.key), statusPages: api.statusPageClient(ws.write.key) });

  async function monitorsByExternalId() {
    const { httpMonitors, tcpMonitors, dnsMonitors } = await client().monitors.listMonitors({ limit: 100 });
    return new Map([...httpMonitors, ...tcpMonitors, ...dnsMonitors].map((m) => [m.externalId, m]));
  }

  it("plans the creation of every entry and exits 2 with --detailed-exitcode", async () => {
    await write(text);
    const plan = await run(["plan", "-f", file, "--detailed-exitcode"]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(`+ monitors.web (http "Storefront")`);
    expect(plan.stdout).toContain(`+ notifications.ops (slack "Ops room")`);
    expect(plan.stdout).toContain("+ statusPages.public.components.note");
    expect(plan.stdout).toContain("Plan: 11 to create, 0 to change, 0 to replace, 0 to delete.");
    expect((await planJson()).summary).toEqual({ create: 11, update: 0, replace: 0, delete: 0 });
    // Nothing was written by a plan.
    expect((await client().monitors.listMonitors({})).totalSize).toBe(0);
  });

  it("applies the file, with progress and a final count, and records each key on its object", async () => {
    const applied = await ok(["apply", "-f", file]);
    expect(applied.stdout).toMatch(/Applied: 11 created, 0 changed, 0 replaced, 0 deleted\.\n$/);
    expect(applied.stderr).toContain("applying 11/11 changes");

    const monitors = await monitorsByExternalId();
    expect([...monitors.keys()].sort()).toEqual(["shop/db", "shop/dns", "shop/web"]);
    expect(monitors.get("shop/web")).toMatchObject({ name: "Storefront", url: "https://shop.example.com/health", traceHeader: false, certificateExpiryDays: 30n, regions: [expect.any(Number), expect.any(Number)] });

    const { notifications } = await client().notifications.listNotifications({});
    const ops = notifications.find((n) => n.externalId === "shop/ops")!;
    expect(ops.provider.case).toBe("slack");
    expect(ops.reminderMinutes).toBe(30);
    expect(new Set(ops.monitorIds)).toEqual(new Set([monitors.get("shop/web")!.id, monitors.get("shop/db")!.id]));

    const { statusPages } = await client().statusPages.listStatusPages({});
    const staff = statusPages.find((p) => p.externalId === "shop/staff")!;
    expect(staff).toMatchObject({ accessType: "password", published: false, language: "de", subscriptionsEnabled: false });
    const pub = statusPages.find((p) => p.externalId === "shop/public")!;
    expect(pub.subscriptionsEnabled).toBe(true);
    const { components } = await client().statusPages.listStatusPageComponents({ pageId: pub.id });
    const { groups } = await client().statusPages.listStatusPageComponentGroups({ pageId: pub.id });
    expect(groups.map((g) => [g.externalId, g.name])).toEqual([["shop/core", "Core"]]);
    const web = components.find((c) => c.externalId === "shop/web")!;
    expect(web).toMatchObject({ type: "monitor", monitorId: monitors.get("shop/web")!.id, groupId: groups[0]!.id, order: 1 });
  });

  it("plans nothing once applied", async () => {
    const plan = await run(["plan", "-f", file, "--detailed-exitcode"]);
    expect(plan).toMatchObject({ code: 0, stderr: "" });
    expect(plan.stdout).toBe(`No changes: the workspace matches ${file} (project shop).\n`);
    // The file may come from stdin.
    const piped = await vigil(["plan", "-f", "-", "--detailed-exitcode"], env(), text);
    expect(piped).toMatchObject({ code: 0, stdout: "No changes: the workspace matches - (project shop).\n" });
  });

  it("changes one field, renames in place, and shows each change field by field", async () => {
    const before = await monitorsByExternalId();
    await write(text.replace("periodicity: 1m", "periodicity: 5m").replace("name: Database\n", "name: Primary database\n"));
    const plan = (await ok(["plan", "-f", file])).stdout;
    expect(plan).toContain(`~ monitors.web\n      periodicity: "1m" → "5m"`);
    expect(plan).toContain(`~ monitors.db\n      name: "Database" → "Primary database"`);
    expect(plan).toContain("Plan: 0 to create, 2 to change, 0 to replace, 0 to delete.");

    await ok(["apply", "-f", file]);
    const after = await monitorsByExternalId();
    expect(after.get("shop/db")).toMatchObject({ id: before.get("shop/db")!.id, name: "Primary database" });
    expect(after.get("shop/web")!.id).toBe(before.get("shop/web")!.id);
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
  });

  it("plans and applies a changed JSON body assertion, and refuses a query that does not parse, naming its line", async () => {
    // As the test before left the workspace.
    const applied = text.replace("periodicity: 1m", "periodicity: 5m").replace("name: Database\n", "name: Primary database\n");
    await write(applied.replace("target: ok }", "target: up }"));
    const plan = (await ok(["plan", "-f", file])).stdout;
    expect(plan).toContain("~ monitors.web\n      jsonBodyAssertions:");
    expect(plan).toContain("Plan: 0 to create, 1 to change, 0 to replace, 0 to delete.");
    await ok(["apply", "-f", file]);
    const web = (await monitorsByExternalId()).get("shop/web") as unknown as { jsonBodyAssertions: unknown };
    expect(web.jsonBodyAssertions).toMatchObject([
      { path: "$.status", comparator: jsonComparatorCodec.encode("eq"), target: "up" },
      { path: "$..error", comparator: jsonComparatorCodec.encode("not_exists"), target: "" },
    ]);

    await write(applied.replace('path: "$..error"', 'path: "error"'));
    const bad = await run(["plan", "-f", file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^\${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+: monitors\\.web\\.jsonBodyAssertions\\[1\\]\\.path: must be a JSONPath query \\(RFC 9535\\)`));
    await write(applied);
    await ok(["apply", "-f", file]);
  });

  it("compares secrets through their fingerprints: the same value is no change, another one is", async () => {
    await write(text.replace("periodicity: 1m", "periodicity: 5m").replace("name: Database\n", "name: Primary database\n"));
    const rotated = await planJson({ SLACK_WEBHOOK: SLACK_ROTATED, STAFF_PASSWORD: "battery staple" });
    expect(rotated.changes.map((c: { address: string; fields: { field: string }[] }) => [c.address, c.fields.map((f) => f.field)])).toEqual([
      ["notifications.ops", ["slack.webhookUrl"]],
      ["statusPages.staff", ["password"]],
    ]);
    expect(JSON.stringify(rotated)).not.toContain("second-secret-value");
    await ok(["apply", "-f", file], { SLACK_WEBHOOK: SLACK_ROTATED, STAFF_PASSWORD: "battery staple" });
    expect((await planJson({ SLACK_WEBHOOK: SLACK_ROTATED, STAFF_PASSWORD: "battery staple" })).summary.update).toBe(0);
    // Left out, a secret keeps its stored value.
    const withoutSecrets = text
      .replace("periodicity: 1m", "periodicity: 5m")
      .replace("name: Database\n", "name: Primary database\n")
      .replace("    slack:\n      webhookUrl: ${SLACK_WEBHOOK}\n", "    slack: {}\n")
      .replace("    password: ${STAFF_PASSWORD}\n", "");
    await write(withoutSecrets);
    expect((await planJson()).changes).toEqual([]);
  });

  it("deletes what the file no longer has, and never touches objects it does not manage", async () => {
    const outsider = await client().monitors.createHTTPMonitor({ monitor: { name: "Made by hand", url: "https://example.com", periodicity: 2 } });
    const current = await readFile(file, "utf8");
    await write(current.replace(/  dns:\n(?: {4}.*\n| {6}.*\n)+/, "").replace("\n  hook:\n    webhook:\n      endpoint: http://127.0.0.1:9/hook\n    monitors: [dns]", ""));
    const plan = await planJson();
    expect(plan.changes.map((c: { address: string; action: string }) => `${c.action} ${c.address}`).sort()).toEqual(["delete monitors.dns", "delete notifications.hook"]);
    await ok(["apply", "-f", file]);
    const monitors = await monitorsByExternalId();
    expect([...monitors.keys()].sort()).toEqual(["", "shop/db", "shop/web"]);
    expect(monitors.get("")!.id).toBe(outsider.monitor!.id);
  });

  it("replaces a monitor whose type changes, and the components that showed it", async () => {
    const current = await readFile(file, "utf8");
    await write(current.replace("    type: tcp\n    name: Primary database\n    uri: db.example.com:5432", "    type: dns\n    name: Primary database\n    uri: db.example.com"));
    const plan = await planJson();
    expect(plan.changes.map((c: { address: string; action: string }) => `${c.action} ${c.address}`)).toEqual([
      "replace monitors.db",
      "update notifications.ops",
      "replace statusPages.public.components.db",
    ]);
    await ok(["apply", "-f", file]);
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    expect((await monitorsByExternalId()).get("shop/db")).toMatchObject({ uri: "db.example.com" });
  });

  it("a second project shares the workspace without touching the first one's objects", async () => {
    const other = join(dir, "other.yaml");
    await writeFile(other, "project: billing\nmonitors:\n  api:\n    type: http\n    name: Billing API\n    url: https://billing.example.com\n    periodicity: 1m\n");
    const applied = await ok(["apply", "-f", other]);
    expect(applied.stdout).toContain("Applied: 1 created, 0 changed, 0 replaced, 0 deleted.");
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    await writeFile(other, "project: billing\n");
    expect((await ok(["apply", "-f", other])).stdout).toContain("Applied: 0 created, 0 changed, 0 replaced, 1 deleted.");
    expect([...(await monitorsByExternalId()).keys()].sort()).toEqual(["", "shop/db", "shop/web"]);
  });

  it("exports the workspace as a file whose plan is empty, to stdout or -o, valid under the shipped JSON Schema", async () => {
    const exported = (await ok(["export", "--project", "shop"])).stdout;
    const exportFile = join(dir, "exported.yaml");
    await ok(["export", "--project", "shop", "-o", exportFile]);
    expect(await readFile(exportFile, "utf8")).toBe(exported);

    const parsed = parse(exported);
    // The project's objects by their keys; the others adopted by id under a key made from their name.
    expect(Object.keys(parsed.monitors).sort()).toEqual(["db", "made-by-hand", "web"]);
    expect(parsed.monitors["made-by-hand"].id).toEqual(expect.any(String));
    expect(parsed.monitors.web.id).toBeUndefined();
    // A field at its default is left out; one that differs is written.
    expect(parsed.monitors.web.traceHeader).toBe(false);
    expect(parsed.monitors["made-by-hand"]).not.toHaveProperty("traceHeader");
    expect(parsed.monitors.web.certificateExpiryDays).toBe(30);
    expect(parsed.monitors["made-by-hand"]).not.toHaveProperty("certificateExpiryDays");
    expect(parsed.statusPages.staff.subscriptionsEnabled).toBe(false);
    expect(parsed.statusPages.public).not.toHaveProperty("subscriptionsEnabled");
    expect(exported).toContain("webhookUrl: sensitive, kept as stored while left out");
    expect(parsed.statusPages.staff.language).toBe("de");
    expect(parsed.statusPages.public).not.toHaveProperty("language");

    const schemaText = (await ok(["schema"])).stdout;
    const schema = JSON.parse(schemaText);
    // The same schema ships in the package, for editors.
    expect(JSON.parse(await readFile(join(__dirname, "../dist/vigil.schema.json"), "utf8"))).toEqual(schema);
    const validate = fileSchemaValidator(schemaText);
    expect(validate(parsed) ? [] : validate.errors).toEqual([]);

    for (const args of [["export", "--project", "shop"], ["export"]]) {
      await writeFile(exportFile, (await ok(args)).stdout);
      const plan = await run(["plan", "-f", exportFile, "--detailed-exitcode"]);
      expect({ args, ...plan }).toMatchObject({ code: 0, stderr: "", stdout: expect.stringContaining("No changes") });
    }
  });

  it("names the line and the field of each problem in a malformed file", async () => {
    await write("monitors:\n  api:\n    type: http\n    name: API\n    url: not-a-url\n    periodicity: 2m\n    extra: 1\n");
    const bad = await run(["plan", "-f", file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${file}:5:10: monitors.api.url: must be an absolute http:// or https:// URL`);
    expect(bad.stderr).toContain(`${file}:6:18: monitors.api.periodicity: must be one of 30s, 1m, 5m, 10m, 30m, 1h`);
    expect(bad.stderr).toContain(`${file}:7:12: monitors.api.extra: is not a field here`);

    await write("monitors:\n  api:\n    type: http\n   name: API\n");
    expect((await run(["plan", "-f", file])).stderr).toMatch(new RegExp(`${file}:4:\\d+: YAML: `));

    await write("notifications:\n  ops:\n    monitors: [ghost]\n    slack:\n      webhookUrl: ${NOT_SET_ANYWHERE}\n");
    expect((await run(["plan", "-f", file])).stderr).toContain(
      `${file}:5:19: notifications.ops.slack.webhookUrl: uses \${NOT_SET_ANYWHERE}, but the environment variable NOT_SET_ANYWHERE is not set`,
    );
    await write("notifications:\n  ops:\n    monitors: [ghost]\n    slack: {}\n");
    const references = await run(["plan", "-f", file]);
    expect(references.stderr).toContain(`${file}:3:16: notifications.ops.monitors[0]: names ghost, which is not a monitor of this file`);
  });

  it("refuses, before writing anything, a group or channel name the API would refuse", async () => {
    const slug = `names-${ws.slug}`;
    await write(
      `project: names\nnotifications:\n  ops:\n    name: "Ops\\u0007room"\n    webhook:\n      endpoint: http://127.0.0.1:9/hook\n` +
        `statusPages:\n  page:\n    title: Names\n    slug: ${slug}\n    groups:\n      core: { name: "Core\\tservices" }\n`,
    );
    const refused = await run(["apply", "-f", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("notifications.ops.name: must not contain control characters");
    expect(refused.stderr).toContain("statusPages.page.groups.core.name: must not contain control characters");
    const { statusPages } = await client().statusPages.listStatusPages({ limit: 100 });
    expect(statusPages.map((page) => page.slug)).not.toContain(slug);
    const { notifications } = await client().notifications.listNotifications({ limit: 100 });
    expect(notifications.map((channel) => channel.externalId)).not.toContain("names/ops");
  });

  it("takes a project and keys as long as the external id they make allows, and names a longer key", async () => {
    const project = `p${"r".repeat(ENTRY_KEY_MAX_CHARS - 1)}`;
    const key = `k${"e".repeat(ENTRY_KEY_MAX_CHARS - 1)}`;
    const entry = `    type: tcp\n    name: Long key\n    uri: db.example.com:5432\n    periodicity: 1m\n`;
    await write(`project: ${project}\nmonitors:\n  ${key}:\n${entry}`);
    expect((await ok(["apply", "-f", file])).stdout).toContain("Applied: 1 created, 0 changed, 0 replaced, 0 deleted.");
    expect((await monitorsByExternalId()).get(`${project}/${key}`)).toMatchObject({ name: "Long key" });
    await write(`project: ${project}\n`);
    expect((await ok(["apply", "-f", file])).stdout).toContain("1 deleted.");

    await write(`project: ${project}\nmonitors:\n  ${key}x:\n${entry}`);
    const long = await run(["plan", "-f", file]);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain(`monitors.${key}x: must be at most ${ENTRY_KEY_MAX_CHARS} characters`);
    await write(`monitors:\n  "web site":\n${entry}`);
    expect((await run(["plan", "-f", file])).stderr).toContain("monitors.web site: must be letters, digits, _ and -, starting with a letter or digit");
  });

  it("shows the server's refusal of a reserved custom domain, naming the entry and the field", async () => {
    // PUBLIC_URL of the test server is https://vigil.test: its host is no page's to take.
    await write(`project: reserved\nstatusPages:\n  own:\n    title: Own\n    slug: own-${ws.slug}\n    customDomain: vigil.test\n`);
    const refused = await run(["apply", "-f", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "statusPages.own: the request was rejected:\n  statusPage.customDomain: is reserved by this Vigil deployment (the host of PUBLIC_URL or one of RESERVED_DOMAINS)",
    );
  });

  it("tells a read key that apply needs a write key, and changes nothing", async () => {
    await write("project: readers\nmonitors:\n  api:\n    type: http\n    name: API\n    url: https://example.com\n    periodicity: 1m\n");
    const refused = await run(["apply", "-f", file], {}, ws.read.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/monitors\.api: .*needs a write key/);
    expect((await run(["plan", "-f", file], {}, ws.read.key)).code).toBe(0);
  });
});
