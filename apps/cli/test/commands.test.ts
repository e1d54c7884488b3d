import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { checkResult, publishResults } from "../../control-plane/test/support/results.js";
import { startVigil, vigil } from "./support/cli.js";

/** Every command of `vigil`, run as a subprocess against a real API server, in table, JSON and YAML output. */
describe("vigil commands", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;
  let hook: Server;
  let hookUrl: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    home = await mkdtemp(join(tmpdir(), "vigil-cli-"));
    hook = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((done) => hook.listen(0, "127.0.0.1", done));
    hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    await api?.close();
    hook?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const env = (key = ws.write.key): NodeJS.ProcessEnv => ({ HOME: home, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: key });

  /** stdout of a command that must succeed without a word on stderr. */
  async function ok(args: string[], key?: string): Promise<string> {
    const run = await vigil(args, env(key));
    expect({ args, ...run }).toMatchObject({ code: 0, stderr: "" });
    return run.stdout;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const okJson = async (args: string[]): Promise<any> => JSON.parse(await ok([...args, "-o", "json"]));
  /** A failing command: its exit code and what it said on stderr. */
  async function fails(args: string[], key?: string) {
    const run = await vigil(args, env(key));
    expect(run.stdout).toBe("");
    return run;
  }
  const headerOf = (table: string) => table.split("\n")[0]!.split(/\s{2,}/);

  it("whoami names the workspace and the key, as a table, JSON and YAML", async () => {
    const table = await ok(["whoami"]);
    expect(table).toMatch(new RegExp(`^slug\\s+${ws.slug}$`, "m"));
    expect(table).toMatch(new RegExp(`^actor\\.keyId\\s+${ws.write.id}$`, "m"));
    expect(await okJson(["whoami"])).toMatchObject({ slug: ws.slug, actor: { type: "apiKey", keyId: ws.write.id, scopes: ["write"] } });
    expect(await ok(["whoami", "-o", "yaml"])).toContain(`slug: ${ws.slug}\n`);
  });

  describe("monitors", () => {
    let httpId: string;
    let tcpId: string;
    let dnsId: string;

    it("create http|tcp|dns take the fields as flags", async () => {
      const table = await ok(["monitors", "create", "http", "--name", "Homepage", "--url", "https://example.com", "--periodicity", "1m", "--region", "hostA-ams", "--region", "hostB-fra", "--header", "accept: text/html", "--expect-status", "200", "--no-follow-redirects", "--no-trace-header"]);
      expect(table).toMatch(/^type\s+http$/m);
      expect(table).toMatch(/^url\s+https:\/\/example\.com$/m);
      httpId = /^id\s+(\S+)$/m.exec(table)![1]!;

      const tcp = await okJson(["monitors", "create", "tcp", "--name", "db", "--uri", "127.0.0.1:5432", "--periodicity", "30s"]);
      expect(tcp.monitor).toMatchObject({ name: "db", uri: "127.0.0.1:5432", periodicity: "PERIODICITY_30S" });
      tcpId = tcp.monitor.id;
      const dns = await okJson(["monitors", "create", "dns", "--name", "dns", "--uri", "example.com", "--periodicity", "5m"]);
      dnsId = dns.monitor.id;

      const http = await okJson(["monitors", "get", httpId]);
      expect(http.monitor.http).toMatchObject({
        regions: ["REGION_HOSTA_AMS", "REGION_HOSTB_FRA"],
        headers: [{ key: "accept", value: "text/html" }],
        statusCodeAssertions: [{ target: "200", comparator: "NUMBER_COMPARATOR_EQUAL" }],
        followRedirects: false,
        traceHeader: false,
      });
    });

    it("create and get print enums in the words of the flags, not the proto's constants; -o json keeps the API's form", async () => {
      const args = ["monitors", "create", "http", "--name", "Words", "--url", "https://example.com/words", "--periodicity", "30s", "--region", "hostA-ams", "--method", "GET", "--expect-status", "200"];
      const created = await ok(args);
      const id = /^id\s+(\S+)$/m.exec(created)![1]!;
      for (const table of [created, await ok(["monitors", "get", id])]) {
        expect(table).toMatch(/^periodicity\s+30s$/m);
        expect(table).toMatch(/^method\s+GET$/m);
        expect(table).toMatch(/^regions\s+hostA-ams$/m);
        expect(table).toMatch(/^status\s+unknown$/m);
        expect(table).toMatch(/^statusCodeAssertions\[0\]\.comparator\s+eq$/m);
        expect(table).not.toMatch(/PERIODICITY_|HTTP_METHOD_|REGION_|MONITOR_STATUS_|NUMBER_COMPARATOR_/);
      }
      expect((await okJson(["monitors", "get", id])).monitor.http).toMatchObject({
        periodicity: "PERIODICITY_30S",
        method: "HTTP_METHOD_GET",
        regions: ["REGION_HOSTA_AMS"],
        status: "MONITOR_STATUS_UNKNOWN",
        statusCodeAssertions: [{ target: "200", comparator: "NUMBER_COMPARATOR_EQUAL" }],
      });
      expect(await ok(["monitors", "get", id, "-o", "yaml"])).toContain("periodicity: PERIODICITY_30S");
      await ok(["monitors", "delete", id]);
    });

    it("create and update take JSON body assertions as --expect-json, and refuse one that does not parse", async () => {
      const created = await okJson([
        "monitors", "create", "http", "--name", "JSON API", "--url", "https://example.com/health", "--periodicity", "1m",
        "--expect-json", "$.status eq ok",
        "--expect-json", "$.services[?@.name == 'db'].latencyMs lt 250",
        "--expect-json", "$.error not_exists",
        "--expect-json", "$.motd contains all systems go",
      ]);
      expect(created.monitor.jsonBodyAssertions).toEqual([
        { path: "$.status", comparator: "JSON_COMPARATOR_EQUAL", target: "ok" },
        { path: "$.services[?@.name == 'db'].latencyMs", comparator: "JSON_COMPARATOR_LESS_THAN", target: "250" },
        { path: "$.error", comparator: "JSON_COMPARATOR_NOT_EXISTS" },
        { path: "$.motd", comparator: "JSON_COMPARATOR_CONTAINS", target: "all systems go" },
      ]);
      const id = created.monitor.id;
      expect(await ok(["monitors", "get", id])).toMatch(/^jsonBodyAssertions\[1\]\.comparator\s+lt$/m);

      const updated = await okJson(["monitors", "update", id, "--expect-json", "$.version exists"]);
      expect(updated.monitor.jsonBodyAssertions).toEqual([{ path: "$.version", comparator: "JSON_COMPARATOR_EXISTS" }]);
      const cleared = await okJson(["monitors", "update", id, "--clear", "jsonBodyAssertions"]);
      expect(cleared.monitor.jsonBodyAssertions ?? []).toEqual([]);

      const noComparator = await vigil(["monitors", "update", id, "--expect-json", "$.status is ok"], env());
      expect(noComparator.code).not.toBe(0);
      expect(noComparator.stderr).toContain('must be "<JSONPath> <comparator> [<target>]"');
      const badTarget = await vigil(["monitors", "update", id, "--expect-json", "$.uptime gt high"], env());
      expect(badTarget.code).not.toBe(0);
      expect(badTarget.stderr).toContain("monitor.jsonBodyAssertions[0].target: must be a number: gt compares numbers");
      await ok(["monitors", "delete", id]);
    });

    it("create --from-json takes what flags do not cover, and flags win over it", async () => {
      const file = join(home, "monitor.json");
      await writeFile(file, JSON.stringify({ name: "from file", url: "https://example.org", periodicity: "PERIODICITY_10M", bodyAssertions: [{ target: "ok", comparator: "STRING_COMPARATOR_CONTAINS" }] }));
      const { monitor } = await okJson(["monitors", "create", "http", "--from-json", file, "--name", "from flags"]);
      expect(monitor).toMatchObject({ name: "from flags", url: "https://example.org", bodyAssertions: [{ target: "ok", comparator: "STRING_COMPARATOR_CONTAINS" }] });
      const fromStdin = JSON.parse((await vigil(["monitors", "create", "tcp", "--from-json", "-", "-o", "json"], env(), JSON.stringify({ name: "stdin", uri: "127.0.0.1:6379", periodicity: "PERIODICITY_1H" }))).stdout);
      expect(fromStdin.monitor).toMatchObject({ name: "stdin", uri: "127.0.0.1:6379" });
    });

    it("list shows every kind in a table and the API's JSON form", async () => {
      const table = await ok(["monitors", "list"]);
      expect(headerOf(table)).toEqual(["ID", "TYPE", "NAME", "TARGET", "EVERY", "REGIONS", "ACTIVE", "STATUS"]);
      expect(table).toMatch(new RegExp(`^${httpId}\\s+http\\s+Homepage\\s+https://example.com\\s+1m\\s+hostA-ams,hostB-fra\\s`, "m"));
      expect(table).toMatch(new RegExp(`^${tcpId}\\s+tcp\\s+db\\s+127.0.0.1:5432\\s+30s\\s`, "m"));
      const json = await okJson(["monitors", "list", "--limit", "50"]);
      expect(json.httpMonitors.map((m: { id: string }) => m.id)).toContain(httpId);
      expect(json.dnsMonitors.map((m: { id: string }) => m.id)).toEqual([dnsId]);
      expect(json.totalSize).toBe(5);
    });

    it("get shows every field of one monitor", async () => {
      expect(await ok(["monitors", "get", dnsId])).toMatch(/^uri\s+example\.com$/m);
      expect((await okJson(["monitors", "get", dnsId])).monitor.dns).toMatchObject({ id: dnsId, uri: "example.com" });
    });

    it("update changes only the fields given; --clear resets fields", async () => {
      expect(await ok(["monitors", "update", httpId, "--name", "Home"])).toMatch(/^name\s+Home$/m);
      const { monitor } = await okJson(["monitors", "update", httpId, "--description", "front door", "--clear", "regions"]);
      expect(monitor).toMatchObject({ name: "Home", description: "front door", url: "https://example.com" });
      expect(monitor.regions).toBeUndefined();
      const tcp = await okJson(["monitors", "update", tcpId, "--no-active"]);
      expect(tcp.monitor).toMatchObject({ uri: "127.0.0.1:5432", active: false });
      expect((await okJson(["monitors", "update", httpId, "--trace-header"])).monitor).toMatchObject({ traceHeader: true, followRedirects: false });
      expect((await okJson(["monitors", "update", httpId, "--no-trace-header"])).monitor).toMatchObject({ traceHeader: false, name: "Home" });
    });

    it("trigger, status and summary", async () => {
      expect(await ok(["monitors", "trigger", httpId])).toBe(`triggered a check of monitor ${httpId}\n`);
      expect(await okJson(["monitors", "trigger", httpId])).toEqual({ success: true });

      expect(headerOf(await ok(["monitors", "status", tcpId]))).toEqual(["REGION", "STATUS", "CERT EXPIRES", "DAYS LEFT", "ISSUER"]);
      expect(await okJson(["monitors", "status", tcpId])).toMatchObject({ id: tcpId });

      const summary = await ok(["monitors", "summary", httpId]);
      expect(headerOf(summary)).toEqual(["RANGE", "SUCCESSFUL", "DEGRADED", "FAILED", "P50", "P75", "P90", "P95", "P99", "LAST CHECK"]);
      expect(summary.split("\n")[1]).toMatch(/^1d\s+0\s+0\s+0\s/);
      expect(await okJson(["monitors", "summary", httpId, "--range", "7d", "--region", "hostA-ams"])).toMatchObject({ id: httpId, timeRange: "TIME_RANGE_7D" });
      expect(await ok(["monitors", "summary", httpId, "--range", "14d", "-o", "yaml"])).toContain("timeRange: TIME_RANGE_14D");
    });

    it("create and update take --certificate-expiry-days; status shows each region's certificate", async () => {
      const { monitor } = await okJson(["monitors", "create", "http", "--name", "tls", "--url", "https://example.com", "--periodicity", "1h", "--region", "hostA-ams", "--certificate-expiry-days", "30"]);
      expect(monitor.certificateExpiryDays).toBe("30");
      expect((await okJson(["monitors", "update", monitor.id, "--certificate-expiry-days", "0"])).monitor).toMatchObject({ certificateExpiryDays: "0", name: "tls" });
      expect((await fails(["monitors", "update", monitor.id, "--certificate-expiry-days", "3651"])).stderr).toContain("monitor.certificateExpiryDays: must be an integer from 0 to 3650");

      const chainNotAfter = new Date(Date.now() + 20 * 86_400_000 + 3_600_000).toISOString();
      const certificate = { notAfter: chainNotAfter, chainNotAfter, issuer: "CN=R11, O=Let's Encrypt, C=US", subjectAltNames: ["DNS:example.com"] };
      await publishResults(api.redisPrefix, [checkResult(monitor.id, "hostA-ams", new Date(Date.now() - 1_000).toISOString(), "success", { certificate })]);
      let shown = "";
      while (!shown.includes("Let's Encrypt")) shown = await ok(["monitors", "status", monitor.id]);
      expect(shown.split("\n")[1]).toMatch(new RegExp(`^hostA-ams\\s+active\\s+${chainNotAfter.slice(0, 10)}\\s+20\\s+CN=R11, O=Let's Encrypt, C=US$`));
      const json = await okJson(["monitors", "status", monitor.id]);
      expect(json.regions[0].certificate).toMatchObject({ issuer: certificate.issuer, subjectAltNames: ["DNS:example.com"], daysLeft: "20" });
      expect(Date.parse(json.regions[0].certificate.chainNotAfter)).toBe(Date.parse(chainNotAfter));
    });

    it("status --watch prints once per interval when stdout is not a terminal, and Ctrl-C ends it", async () => {
      const watching = startVigil(["monitors", "status", tcpId, "--watch", "--interval", "0.2"], env());
      while ((watching.stdout().match(/^REGION/gm) ?? []).length < 2) await new Promise((done) => setTimeout(done, 50));
      watching.child.kill("SIGINT");
      const run = await watching.done;
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("\x1b");
    });

    it("prints no colour codes when piped or with NO_COLOR, and colours statuses with FORCE_COLOR", async () => {
      const piped = await vigil(["monitors", "list"], env());
      expect(piped.stdout).not.toContain("\x1b");
      const forced = await vigil(["monitors", "list"], { ...env(), FORCE_COLOR: "1" });
      expect(forced.stdout).toContain("\x1b[");
      const noColor = await vigil(["monitors", "list"], { ...env(), FORCE_COLOR: "1", NO_COLOR: "1" });
      expect(noColor.stdout).not.toContain("\x1b");
    });

    it("delete, after which the id is not found", async () => {
      expect(await ok(["monitors", "delete", dnsId])).toBe(`deleted monitor ${dnsId}\n`);
      expect(await okJson(["monitors", "delete", tcpId])).toEqual({ success: true });
      const gone = await fails(["monitors", "get", dnsId]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/^vigil: not found: .*Check the id/);
    });
  });

  describe("incidents", () => {
    it("list and get", async () => {
      const { monitor } = await okJson(["monitors", "create", "tcp", "--name", "cache", "--uri", "127.0.0.1:6379", "--periodicity", "1m"]);
      // Incidents come from check results; one written directly stands for what alerting records.
      const { id: workspaceId } = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: ws.slug } });
      const incident = await api.db.prisma.incident.create({
        data: { workspaceId, monitorId: monitor.id, severity: "error", startedAt: new Date(), regions: ["hostA-ams"], reason: "connection refused" },
      });
      const region = { region: "hostA-ams", status: "error", error: "connect ECONNREFUSED", reason: "connect", statusCode: null, latencyMs: null };
      await api.db.prisma.alertEvent.create({
        data: { workspaceId, monitorId: monitor.id, incidentId: incident.id, type: "monitor.failed", fromStatus: "active", toStatus: "error", occurredAt: incident.startedAt, details: { regions: [region] } },
      });

      const table = await ok(["incidents", "list", "--open"]);
      expect(headerOf(table)).toEqual(["ID", "MONITOR", "SEVERITY", "STARTED", "RESOLVED", "ACKNOWLEDGED", "REGIONS", "REASON"]);
      expect(table).toMatch(new RegExp(`^${incident.id}\\s+${monitor.id}\\s+error\\s+\\S+\\s+open\\s+hostA-ams\\s+connection refused$`, "m"));
      expect((await okJson(["incidents", "list", "--monitor", monitor.id])).incidents).toEqual([
        expect.objectContaining({ id: incident.id, monitorId: monitor.id, severity: "MONITOR_STATUS_ERROR" }),
      ]);
      const shown = await ok(["incidents", "get", incident.id]);
      expect(shown).toMatch(/^reason\s+connection refused$/m);
      expect(shown).toMatch(/^severity\s+error$/m);
      expect(shown).toMatch(/^regions\s+hostA-ams$/m);
      expect(shown).toMatch(/^TIME\s+EVENT\s+REGION\s+STATUS\s+STATUS CODE\s+REASON$/m);
      expect(shown).toMatch(/^\S+\s+monitor\.failed\s+hostA-ams\s+error\s+connect$/m);
      expect((await okJson(["incidents", "get", incident.id])).timeline).toEqual([
        expect.objectContaining({ type: "monitor.failed", status: "MONITOR_STATUS_ERROR", regions: [expect.objectContaining({ region: "REGION_HOSTA_AMS", reason: "connect" })] }),
      ]);
      expect((await okJson(["incidents", "get", incident.id])).incident).toMatchObject({ id: incident.id, regions: ["REGION_HOSTA_AMS"] });
      const missing = await fails(["incidents", "get", "00000000-0000-0000-0000-000000000000"]);
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining("not found") });

      const key = await api.db.prisma.apiKey.findFirstOrThrow({ where: { workspace: { slug: ws.slug }, scopes: { has: "write" } } });
      expect(await ok(["incidents", "ack", incident.id])).toMatch(new RegExp(`^acknowledged incident ${incident.id} \\(\\S+ by api_key:${key.id}\\)$`, "m"));
      const first = (await okJson(["incidents", "get", incident.id])).incident;
      expect(first).toMatchObject({ acknowledgedBy: `api_key:${key.id}`, acknowledgedAt: expect.any(String) });
      // Acknowledging again keeps the first acknowledgement.
      expect((await okJson(["incidents", "ack", incident.id])).incident).toMatchObject({ acknowledgedAt: first.acknowledgedAt });
      expect(await ok(["incidents", "list", "--monitor", monitor.id])).toMatch(new RegExp(`\\sopen\\s+api_key:${key.id}\\s+hostA-ams`));
      await api.db.prisma.incident.update({ where: { id: incident.id }, data: { resolvedAt: new Date(), acknowledgedAt: null } });
      expect(await fails(["incidents", "ack", incident.id])).toMatchObject({ code: 1, stderr: expect.stringContaining("resolved") });
    });
  });

  describe("notifications", () => {
    let id: string;

    it("create <provider> takes --set for the channel's fields", async () => {
      const { monitor } = await okJson(["monitors", "create", "http", "--name", "alerts", "--url", "https://example.net", "--periodicity", "5m"]);
      const table = await ok(["notifications", "create", "webhook", "--name", "Hook", "--set", `endpoint=${hookUrl}`, "--monitor", monitor.id]);
      expect(table).toMatch(new RegExp(`^webhook\\.endpoint\\s+${hookUrl.replace(/[.]/g, "\\.")}$`, "m"));
      expect(table).toMatch(/^signingSecret \(shown once\)\s+\S+/m);
      id = /^id\s+(\S+)$/m.exec(table)![1]!;
      const slack = await okJson(["notifications", "create", "slack", "--name", "Slack", "--set", "webhookUrl=https://hooks.slack.com/services/T0/B0/x"]);
      // The API shows secrets masked.
      expect(slack.notification).toMatchObject({ name: "Slack", slack: { webhookUrl: expect.stringMatching(/^https:\/\/hooks\.slack\.com\//) } });
    });

    it("list, get and update", async () => {
      const table = await ok(["notifications", "list"]);
      expect(headerOf(table)).toEqual(["ID", "NAME", "PROVIDER", "MONITORS"]);
      expect(table).toMatch(new RegExp(`^${id}\\s+Hook\\s+webhook\\s`, "m"));
      expect((await okJson(["notifications", "list"])).notifications).toHaveLength(2);
      expect(await ok(["notifications", "get", id])).toMatch(/^name\s+Hook$/m);
      expect((await okJson(["notifications", "get", id])).notification).toMatchObject({ id, name: "Hook" });
      expect(await ok(["notifications", "update", id, "--name", "Webhook"])).toMatch(/^name\s+Webhook$/m);
      const updated = await okJson(["notifications", "update", id, "--set", `endpoint=${hookUrl}?v=2`]);
      expect(updated.notification).toMatchObject({ name: "Webhook", webhook: { endpoint: `${hookUrl}?v=2` } });
      expect(await ok(["notifications", "update", id, "--reminder-minutes", "30"])).toMatch(/^reminderMinutes\s+30$/m);
      expect((await okJson(["notifications", "get", id])).notification).toMatchObject({ name: "Webhook", reminderMinutes: 30 });
      const tooOften = await fails(["notifications", "update", id, "--reminder-minutes", "1441"]);
      expect(tooOften).toMatchObject({ code: 1, stderr: expect.stringContaining("notification.reminderMinutes: must be an integer from 0 to 1440") });
    });

    it("test and deliveries", async () => {
      expect(await ok(["notifications", "test", id])).toBe(`sent a test message through notification ${id}\n`);
      expect(await okJson(["notifications", "test", id])).toEqual({ success: true });
      const deliveries = await ok(["notifications", "deliveries", id]);
      expect(headerOf(deliveries)).toEqual(["ID", "NOTIFICATION", "EVENT", "MONITOR", "OUTCOME", "STATUS", "ATTEMPTS", "CREATED", "ERROR"]);
      expect(deliveries).toMatch(new RegExp(`^\\S+\\s+${id}\\s+test\\s+\\S+\\s+delivered\\s+200\\s+1\\s`, "m"));
      expect((await okJson(["notifications", "deliveries", id, "--limit", "1"])).deliveries).toHaveLength(1);
      // A test belongs to no incident.
      expect((await okJson(["notifications", "deliveries", id, "--incident", "00000000-0000-0000-0000-000000000000"])).deliveries ?? []).toEqual([]);
      expect(await fails(["notifications", "deliveries"])).toMatchObject({ code: 1, stderr: expect.stringContaining("id: is required unless incidentId is given") });

      const closed = await okJson(["notifications", "create", "webhook", "--name", "Closed", "--set", "endpoint=http://127.0.0.1:9/hook"]);
      const failed = await fails(["notifications", "test", closed.notification.id]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^vigil: the test message through notification \S+ was not delivered: \S/);
    });

    it("delete", async () => {
      expect(await ok(["notifications", "delete", id])).toBe(`deleted notification ${id}\n`);
      expect((await fails(["notifications", "get", id])).code).toBe(1);
    });
  });

  describe("status pages, their components and groups", () => {
    let pageId: string;
    let groupId: string;
    let componentId: string;

    it("create, list, get, update, publish, unpublish", async () => {
      const table = await ok(["status-pages", "create", "--title", "Acme status", "--slug", "acme-cli"]);
      expect(table).toMatch(/^slug\s+acme-cli$/m);
      pageId = /^id\s+(\S+)$/m.exec(table)![1]!;
      expect((await okJson(["status-pages", "create", "--title", "Other", "--slug", "other-cli"])).statusPage).toMatchObject({ slug: "other-cli" });

      const list = await ok(["status-pages", "list"]);
      expect(headerOf(list)).toEqual(["ID", "TITLE", "SLUG", "PUBLISHED", "ACCESS", "DOMAIN"]);
      expect(list).toMatch(new RegExp(`^${pageId}\\s+Acme status\\s+acme-cli\\s+true\\s+public`, "m"));
      expect((await okJson(["status-pages", "list"])).statusPages).toHaveLength(2);
      expect(await ok(["status-pages", "get", pageId])).toMatch(/^title\s+Acme status$/m);
      expect((await okJson(["status-pages", "get", pageId])).statusPage).toMatchObject({ id: pageId });
      expect(await ok(["status-pages", "update", pageId, "--description", "All of Acme"])).toMatch(/^description\s+All of Acme$/m);
      expect((await okJson(["status-pages", "update", pageId, "--homepage-url", "https://acme.example"])).statusPage).toMatchObject({ homepageUrl: "https://acme.example" });
      expect((await okJson(["status-pages", "update", pageId, "--language", "fr"])).statusPage).toMatchObject({ language: "fr" });
      expect((await fails(["status-pages", "update", pageId, "--language", "xx"])).stderr).toContain("statusPage.language: must be one of en, de, fr, es, pt, ja");
      // A new page is published.
      expect(await ok(["status-pages", "unpublish", pageId])).not.toMatch(/^published\s+true$/m);
      expect(await ok(["status-pages", "publish", pageId])).toMatch(/^published\s+true$/m);
      expect((await okJson(["status-pages", "unpublish", pageId])).statusPage.published).toBeUndefined();
      expect((await okJson(["status-pages", "publish", pageId])).statusPage).toMatchObject({ published: true });
    });

    it("groups create, list, get, update", async () => {
      const table = await ok(["status-pages", "groups", "create", pageId, "--name", "Core"]);
      groupId = /^id\s+(\S+)$/m.exec(table)![1]!;
      expect((await okJson(["status-pages", "groups", "create", pageId, "--name", "Edge"])).group).toMatchObject({ name: "Edge", pageId });
      expect(await ok(["status-pages", "groups", "list", pageId])).toMatch(new RegExp(`^${groupId}\\s+Core$`, "m"));
      expect((await okJson(["status-pages", "groups", "list", pageId])).groups).toHaveLength(2);
      expect(await ok(["status-pages", "groups", "get", pageId, groupId])).toMatch(/^name\s+Core$/m);
      expect((await okJson(["status-pages", "groups", "get", pageId, groupId])).group).toMatchObject({ id: groupId });
      expect(await ok(["status-pages", "groups", "update", pageId, groupId, "--name", "Core services"])).toMatch(/^name\s+Core services$/m);
      expect((await okJson(["status-pages", "groups", "update", pageId, groupId, "--name", "Core"])).group).toMatchObject({ name: "Core" });
    });

    it("components create, list, get, update, delete", async () => {
      const { monitor } = await okJson(["monitors", "create", "http", "--name", "api", "--url", "https://api.example.com", "--periodicity", "5m"]);
      const table = await ok(["status-pages", "components", "create", pageId, "--type", "monitor", "--monitor", monitor.id, "--name", "API", "--group", groupId]);
      componentId = /^id\s+(\S+)$/m.exec(table)![1]!;
      const staticOne = await okJson(["status-pages", "components", "create", pageId, "--type", "static", "--name", "Office", "--order", "2"]);
      expect(staticOne.component).toMatchObject({ type: "static", name: "Office", order: 2 });
      const list = await ok(["status-pages", "components", "list", pageId]);
      expect(headerOf(list)).toEqual(["ID", "TYPE", "NAME", "MONITOR", "GROUP", "ORDER"]);
      expect(list).toMatch(new RegExp(`^${componentId}\\s+monitor\\s+API\\s+${monitor.id}\\s+${groupId}`, "m"));
      expect((await okJson(["status-pages", "components", "list", pageId])).components).toHaveLength(2);
      expect(await ok(["status-pages", "components", "get", pageId, componentId])).toMatch(/^name\s+API$/m);
      expect((await okJson(["status-pages", "components", "get", pageId, componentId])).component).toMatchObject({ id: componentId });
      expect(await ok(["status-pages", "components", "update", pageId, componentId, "--description", "public API"])).toMatch(/^description\s+public API$/m);
      expect((await okJson(["status-pages", "components", "update", pageId, componentId, "--name", "Public API"])).component).toMatchObject({ name: "Public API" });
      expect(await ok(["status-pages", "components", "delete", pageId, componentId])).toBe(`deleted component ${componentId}\n`);
      expect(await okJson(["status-pages", "components", "delete", pageId, staticOne.component.id])).toEqual({ success: true });
    });

    it("groups delete and page delete", async () => {
      expect(await ok(["status-pages", "groups", "delete", pageId, groupId])).toBe(`deleted group ${groupId}\n`);
      const edge = (await okJson(["status-pages", "groups", "list", pageId])).groups[0].id;
      expect(await okJson(["status-pages", "groups", "delete", pageId, edge])).toEqual({ success: true });
      expect(await ok(["status-pages", "delete", pageId])).toBe(`deleted status page ${pageId}\n`);
      const other = (await okJson(["status-pages", "list"])).statusPages[0].id;
      expect(await okJson(["status-pages", "delete", other])).toEqual({ success: true });
    });
  });

  describe("keys", () => {
    it("revoke, after which the key is refused", async () => {
      const other = await api.workspace();
      const otherEnv = (key: string) => ({ ...env(key) });
      const table = await vigil(["keys", "revoke", other.read.id], otherEnv(other.write.key));
      expect(table).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^revoked API key ${other.read.id} at \\d{4}-`)) });
      const json = await vigil(["keys", "revoke", other.legacy.id, "-o", "json"], otherEnv(other.write.key));
      expect(JSON.parse(json.stdout)).toMatchObject({ id: other.legacy.id, revoked: true, revokedAt: expect.any(String) });
      const refused = await fails(["whoami"], other.read.key);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("the API key was refused");
    });
  });
});
