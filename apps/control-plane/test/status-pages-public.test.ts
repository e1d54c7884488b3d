import { randomBytes } from "node:crypto";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import FindMyWay, { type HTTPVersion } from "find-my-way";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { PrismaClient } from "@vigil/db";
import { PAGE_HISTORY, REQUEST_LIMITS, latencyBucket } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import { Periodicity, Region } from "@vigil/proto";
import { Changes } from "../src/changes/changes";
import { PageAccessControl } from "../src/status-pages/public/access";
import { PageHosts } from "../src/status-pages/public/addresses";
import { PageSessions } from "../src/status-pages/public/sessions";
import { publicStatusPageRoutes } from "../src/status-pages/public/routes";
import { RequestRates } from "../src/limits/request-rates";
import { pruneResults } from "../src/results/retention";
import { storeResults } from "../src/results/store";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { eventually } from "../../../test/eventually";
import { migrationStatements } from "./support/migrations";
import { checkResult, publishResults } from "./support/results";
import { seedDay, statusPageFixtures, utcDay } from "./support/status-pages";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with any headers, Host included (fetch does not let a test set it). */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, baseUrl), { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
}

/** A GET whose body stays bytes (a compressed answer). */
function getBytes(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, baseUrl), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
  });
}

/** The names of the components and groups in the order the page shows them. */
const shownNames = (html: string) => [...html.matchAll(/<h[34](?: id="[^"]*")?(?: class="name")?>([^<]*)<\/h[34]>/g)].map((m) => m[1]);
const dayTips = (html: string) => [...html.matchAll(/<li class="day day-([a-z_]+)" tabindex="0"><span class="tip">([^<]*)<\/span><\/li>/g)].map((m) => ({ status: m[1], tip: m[2] }));

describe.each(BACKENDS)("public status pages on %s", (backend) => {
  let api: TestApi;
  let writeKey: string;
  let workspaceId: string;
  let fixtures: ReturnType<typeof statusPageFixtures>;
  const page = (path: string, headers?: Record<string, string>) => get(api.baseUrl, path, headers);

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    writeKey = keys.write.key;
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    fixtures = statusPageFixtures(api.db.prisma, workspaceId);
  });
  afterAll(() => api.close());

  const monitor = async (name: string, options: { regions?: Region[]; public?: boolean } = {}) => {
    const { monitor } = await api.client(writeKey).createHTTPMonitor({
      monitor: { name, url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M, regions: options.regions ?? [], public: options.public },
    });
    return monitor!.id;
  };

  it("shows the page's content, its components in order and grouped, each with its status", async () => {
    const api1 = await monitor("API monitor");
    const p = await fixtures.page({
      title: "Acme",
      description: "Everything Acme runs",
      homepageUrl: "https://acme.example/",
      contactUrl: "https://acme.example/contact",
      icon: "https://acme.example/icon.png",
    });
    const backendGroup = await fixtures.group(p.id, "Backend");
    await fixtures.component(p.id, { name: "Website", position: 2 });
    await fixtures.component(p.id, { monitorId: api1, position: 1, description: "The public API" });
    await fixtures.component(p.id, { name: "Queue", position: 5, groupId: backendGroup.id, groupOrder: 2 });
    await fixtures.component(p.id, { name: "Database", position: 3, groupId: backendGroup.id, groupOrder: 1 });
    await fixtures.component(p.id, { name: "Docs", position: 4 });
    await fixtures.group(p.id, "Empty group");

    const res = await page(`/status/${p.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toMatch(/<main[ >]/);
    expect(res.body).toContain("<h1>Acme</h1>");
    expect(res.body).toContain("Everything Acme runs");
    expect(res.body).toContain('<a href="https://acme.example/">Homepage</a>');
    expect(res.body).toContain('<a href="https://acme.example/contact">Contact</a>');
    expect(res.body).toContain('<img src="https://acme.example/icon.png" alt=""');
    expect(res.body).toContain("All Systems Operational");
    // The monitor component without a name shows its monitor's; a group sits where its first component would be.
    expect(shownNames(res.body)).toEqual(["API monitor", "Website", "Backend", "Database", "Queue", "Docs"]);
    expect(res.body).toContain("The public API");
    expect(res.body).not.toContain("Empty group");
    // Only the monitor component has a bar; every status is said in words.
    expect(dayTips(res.body)).toHaveLength(90);
    expect(res.body.match(/<p class="status status-operational">/g)).toHaveLength(6);
    expect(res.body).toContain("✓</span> Operational");
  });

  it("follows its monitors as they fail and recover through ingest, and lists the incident", async () => {
    const id = await monitor("Checkout", { regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] });
    const p = await fixtures.page({ title: "Shop" });
    await fixtures.component(p.id, { monitorId: id, name: "Checkout service" });
    await fixtures.component(p.id, { name: "Static" });
    const summary = async () => JSON.parse((await page(`/status/${p.slug}/summary.json`)).body);
    // The scenario's times, fixed at its start so that the incident's duration is exact.
    const t0 = Date.now();
    const secondsAgo = (s: number) => new Date(t0 - s * 1000).toISOString();
    const componentStatus = async () => (await summary()).components.find((c: { name: string }) => c.name === "Checkout service").status;

    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(30), "success"), checkResult(id, "hostB-fra", secondsAgo(30), "success")]);
    await publishResults(api.redisPrefix, [checkResult(id, "hostB-fra", secondsAgo(20), "error")]);
    await eventually(async () => expect(await componentStatus()).toBe("partial_outage"), 20_000);
    expect((await summary()).status).toEqual({ indicator: "major", description: "Partial System Outage" });
    expect((await page(`/status/${p.slug}`)).body).toContain("Partial System Outage");

    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(15), "error")]);
    await eventually(async () => expect(await componentStatus()).toBe("major_outage"), 20_000);
    const failing = await summary();
    expect(failing.status).toEqual({ indicator: "major", description: "Partial System Outage" }); // the static component still works
    expect(failing.incidents).toHaveLength(1);
    expect(failing.incidents[0]).toMatchObject({
      name: "Outage: Checkout service",
      status: "investigating",
      impact: "major",
      resolved_at: null,
      monitor: { id, name: "Checkout" },
      components: [expect.objectContaining({ name: "Checkout service", status: "major_outage" })],
    });
    const html = (await page(`/status/${p.slug}`)).body;
    expect(html).toContain("Major outage");
    expect(html).toContain("Outage: Checkout service");
    expect(html).toContain("Ongoing");

    await publishResults(api.redisPrefix, [checkResult(id, "hostA-ams", secondsAgo(5), "success"), checkResult(id, "hostB-fra", secondsAgo(5), "success")]);
    await eventually(async () => expect(await componentStatus()).toBe("operational"), 20_000);
    const recovered = await summary();
    expect(recovered.status).toEqual({ indicator: "none", description: "All Systems Operational" });
    expect(recovered.incidents).toEqual([]);
    const after = (await page(`/status/${p.slug}`)).body;
    expect(after).toContain("Resolved");
    expect(after).toContain("<dt>Duration</dt><dd>15 sec</dd>");
    // Ingest counted the results per UTC day too: 6 checks, 2 of them failed.
    expect(recovered.components[0].uptime_90d).toBeCloseTo((100 * 4) / 6, 10);
  });

  it("draws 90 days from the daily counts of all regions, with public monitors' medians only", async () => {
    const now = new Date();
    const [privateId, publicId] = [await monitor("Private"), await monitor("Public", { public: true })];
    const p = await fixtures.page();
    await fixtures.component(p.id, { monitorId: privateId, position: 1 });
    await fixtures.component(p.id, { monitorId: publicId, position: 2 });
    const prisma = api.db.prisma;
    await seedDay(prisma, privateId, utcDay(now, 0), { successful: 1000 });
    await seedDay(prisma, privateId, utcDay(now, 1), { successful: 990, failed: 10 });
    await seedDay(prisma, privateId, utcDay(now, 2), { successful: 999, failed: 1 });
    await seedDay(prisma, privateId, utcDay(now, 3), { successful: 900, degraded: 100 });
    await seedDay(prisma, privateId, utcDay(now, 4), { successful: 500 });
    await seedDay(prisma, privateId, utcDay(now, 4), { failed: 500 }); // another region's
    await seedDay(prisma, privateId, utcDay(now, 89), { successful: 10 });
    await seedDay(prisma, privateId, utcDay(now, 90), { failed: 10 }); // before the bar: counts nowhere
    for (const monitorId of [privateId, publicId]) {
      await seedDay(prisma, monitorId, utcDay(now, 5), { successful: 10 });
      await prisma.allRegionDailyLatencyBucket.create({ data: { monitorId, day: utcDay(now, 5), bucket: latencyBucket(120), count: 10 } });
    }

    const html = (await page(`/status/${p.slug}`)).body;
    const [privateBar, publicBar] = [dayTips(html).slice(0, 90), dayTips(html).slice(90)];
    expect(privateBar.map((d) => d.status).slice(-6)).toEqual(["operational", "outage", "degraded", "degraded", "outage", "operational"].reverse());
    const dayWords = (day: Date) => day.toLocaleDateString("en", { dateStyle: "medium", timeZone: "UTC" });
    expect(privateBar.at(-1)!.tip).toBe(`${dayWords(utcDay(now, 0))} · Operational · 1,000 checks · 0 failed · 100.00% uptime`);
    expect(privateBar.at(-2)!.tip).toContain("Outage · 1,000 checks · 10 failed · 99.00% uptime");
    expect(privateBar.at(-5)!.tip).toContain("Outage · 1,000 checks · 500 failed · 50.00% uptime");
    expect(privateBar[0]).toEqual({ status: "operational", tip: `${dayWords(utcDay(now, 89))} · Operational · 10 checks · 0 failed · 100.00% uptime` });
    expect(privateBar[1]!.status).toBe("no_data");
    expect(privateBar[1]!.tip).toContain("No data · 0 checks · 0 failed · no data uptime");
    // Response times of a private monitor stay private; a public one's day shows its median.
    expect(privateBar.at(-6)!.tip).not.toContain("median");
    expect(publicBar.at(-6)!.tip).toMatch(/· median response \d+ ms$/);

    const summary = JSON.parse((await page(`/status/${p.slug}/summary.json`)).body);
    // 5,020 checks over the 90 days, 511 failed.
    const failedShare = (10 + 1 + 500) / 5020;
    expect(summary.components[0].uptime_90d).toBeCloseTo(100 * (1 - failedShare), 10);
    expect(summary.components[1].uptime_90d).toBe(100);
  });

  it("lists open incidents and those of the last 14 days with start, end and duration", async () => {
    const [id, elsewhere] = [await monitor("Search"), await monitor("Not on the page")];
    const p = await fixtures.page();
    await fixtures.component(p.id, { monitorId: id, name: "Search" });
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    const incident = (monitorId: string, severity: string, startedAt: Date, resolvedAt: Date | null) =>
      api.db.prisma.incident.create({ data: { workspaceId, monitorId, severity, startedAt, resolvedAt, regions: ["hostA-ams"] } });
    await incident(id, "degraded", hoursAgo(72), new Date(hoursAgo(72).getTime() + 90 * 60_000));
    await incident(id, "error", hoursAgo(20 * 24), hoursAgo(20 * 24 - 1));
    await incident(elsewhere, "error", hoursAgo(1), null);
    const open = await incident(id, "error", hoursAgo(2), null);

    const html = (await page(`/status/${p.slug}`)).body;
    expect(html).toContain("Outage: Search</a></h3>");
    expect(html).toContain("Degraded performance: Search</a></h3>");
    expect(html).toMatch(new RegExp(`<time datetime="${open.startedAt.toISOString()}" data-local="">`, "i"));
    expect(html).toContain("<dt>Duration</dt><dd>1 hr 30 min</dd>");
    expect(html).toContain("<dt>Duration</dt><dd>ongoing</dd>");
    expect(html.match(/class="incident /g)).toHaveLength(2);
    expect(html.indexOf("Outage: Search")).toBeLessThan(html.indexOf("Degraded performance: Search"));

    const summary = JSON.parse((await page(`/status/${p.slug}/summary.json`)).body);
    expect(summary.incidents.map((i: { id: string }) => i.id)).toEqual([open.id]);
    expect(summary.incidents[0]).toMatchObject({ created_at: open.startedAt.toISOString(), resolved_at: null, monitor: { id, name: "Search" } });
  });

  it("answers at / of a page's custom domain, with its companions, whatever the case and port of the Host", async () => {
    const p = await fixtures.page({ title: "Custom", customDomain: "status.custom.example" });
    await fixtures.component(p.id, { name: "Everything" });
    const home = await page("/", { host: "Status.Custom.Example:8443" });
    expect(home.status).toBe(200);
    expect(home.body).toContain("<h1>Custom</h1>");
    expect(home.body).toContain('href="/feed.atom"');
    const summary = await page("/summary.json", { host: "status.custom.example" });
    expect(JSON.parse(summary.body).page).toMatchObject({ id: p.id, name: "Custom", url: "https://status.custom.example/" });
    expect((await page("/badge.svg", { host: "status.custom.example" })).status).toBe(200);
    expect((await page("/feed.atom", { host: "status.custom.example" })).status).toBe(200);
    // Any other host is not a page: / stays the API's 404.
    const other = await page("/", { host: "elsewhere.example" });
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body)).toMatchObject({ code: "not_found" });
  });

  it("is 404 for an unknown slug and for an unpublished page, companions included", async () => {
    const hidden = await fixtures.page({ published: false, customDomain: "hidden.example" });
    for (const path of [`/status/${hidden.slug}`, `/status/${hidden.slug}/summary.json`, `/status/${hidden.slug}/badge.svg`, `/status/${hidden.slug}/feed.atom`, "/status/no-such-page"]) {
      const res = await page(path);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain(hidden.title);
    }
    expect((await page("/", { host: "hidden.example" })).status).toBe(404);
  });

  it("tags answers for caches: ETag with 304, public max-age, never a public copy of a protected page", async () => {
    const p = await fixtures.page();
    await fixtures.component(p.id, { name: "Only" });
    for (const path of [`/status/${p.slug}`, `/status/${p.slug}/summary.json`, `/status/${p.slug}/badge.svg`, `/status/${p.slug}/feed.atom`]) {
      const first = await page(path);
      expect(first.status).toBe(200);
      expect(first.headers["cache-control"]).toBe("public, max-age=5, s-maxage=5");
      expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
      const again = await page(path, { "if-none-match": `W/"other", ${first.headers.etag}` });
      expect(again.status).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.etag).toBe(first.headers.etag);
      expect((await page(path, { "if-none-match": '"other"' })).status).toBe(200);
    }

    // A policy that allows the page's own inline style and script by hash, and nothing from elsewhere.
    const csp = String((await page(`/status/${p.slug}`)).headers["content-security-policy"]);
    expect(csp).toMatch(/default-src 'none'; style-src 'sha256-[\w+/=]+'; script-src 'sha256-[\w+/=]+';/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    for (const path of [`/status/${p.slug}`, `/status/${p.slug}/summary.json`, `/status/nobody-here`]) {
      const headers = (await page(path)).headers;
      expect([path, headers["x-content-type-options"], headers["referrer-policy"]]).toEqual([path, "nosniff", "same-origin"]);
      expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    }

    // Compressed once per render for clients that take gzip: the same bytes, the same ETag.
    const plain = await page(`/status/${p.slug}`);
    const gzipped = await getBytes(api.baseUrl, `/status/${p.slug}`, { "accept-encoding": "br;q=1, gzip;q=0.8" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers.vary).toBe("Accept-Encoding, Accept-Language");
    expect(gzipped.headers.etag).toBe(plain.headers.etag);
    expect(gunzipSync(gzipped.body).toString("utf8")).toBe(plain.body);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const refused = await page(`/status/${p.slug}`, { "accept-encoding": "gzip;q=0, identity" });
    expect(refused.headers["content-encoding"]).toBeUndefined();

    const secret = await fixtures.page({ accessType: "password", passwordHash: "scrypt$1$1$1$AA$AA" });
    await fixtures.component(secret.id, { name: "Secret component" });
    for (const path of [`/status/${secret.slug}`, `/status/${secret.slug}/summary.json`]) {
      const res = await page(path);
      expect(res.status).toBe(401);
      expect(res.headers["cache-control"]).not.toContain("public");
      expect(res.body).not.toContain("Secret component");
    }
  });

  it("writes summary.json in Statuspage's shape, and a well-formed badge and Atom feed", async () => {
    const id = await monitor("Mail");
    const p = await fixtures.page({ title: "Mail status", description: "Our mail" });
    const g = await fixtures.group(p.id, "Delivery");
    const smtp = await fixtures.component(p.id, { monitorId: id, name: "SMTP", description: "Outgoing", groupId: g.id });
    const web = await fixtures.component(p.id, { name: "Webmail", position: 1 });
    await api.db.prisma.monitor.update({ where: { id }, data: { status: "degraded" } });
    const started = new Date(Date.now() - 600_000);
    const incident = await api.db.prisma.incident.create({ data: { workspaceId, monitorId: id, severity: "degraded", startedAt: started, regions: ["hostA-ams"] } });

    const summary = JSON.parse((await page(`/status/${p.slug}/summary.json`)).body);
    expect(summary.page).toEqual({ id: p.id, name: "Mail status", url: `https://vigil.test/status/${p.slug}`, time_zone: "Etc/UTC", updated_at: expect.any(String) });
    expect(summary.status).toEqual({ indicator: "minor", description: "Degraded System Performance" });
    expect(summary.components).toEqual([
      expect.objectContaining({
        id: smtp.id, name: "SMTP", description: "Outgoing", status: "degraded_performance", group_id: g.id, position: 1, group: false,
        page_id: p.id, created_at: smtp.createdAt.toISOString(), updated_at: smtp.updatedAt.toISOString(), uptime_90d: null,
      }),
      expect.objectContaining({ id: web.id, name: "Webmail", description: null, status: "operational", group_id: null, position: 2, uptime_90d: null }),
      expect.objectContaining({ id: g.id, name: "Delivery", status: "degraded_performance", group: true, components: [smtp.id] }),
    ]);
    expect(summary.incidents).toEqual([
      expect.objectContaining({
        id: incident.id, name: "Degraded performance: SMTP", status: "investigating", impact: "minor",
        created_at: started.toISOString(), resolved_at: null, monitor: { id, name: "Mail" },
        components: [expect.objectContaining({ id: smtp.id, name: "SMTP" })],
      }),
    ]);
    expect(summary.scheduled_maintenances).toEqual([]);

    const badge = await page(`/status/${p.slug}/badge.svg`);
    expect(badge.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(XMLValidator.validate(badge.body)).toBe(true);
    expect(badge.body).toContain("Degraded System Performance");

    const atom = await page(`/status/${p.slug}/feed.atom`);
    expect(atom.headers["content-type"]).toBe("application/atom+xml; charset=utf-8");
    expect(XMLValidator.validate(atom.body)).toBe(true);
    const feed = new XMLParser({ ignoreAttributes: false }).parse(atom.body).feed;
    expect(feed.title).toBe("Mail status incidents");
    expect(feed.entry).toMatchObject({ id: `urn:vigil:incident:${incident.id}`, title: { "#text": "Degraded performance: SMTP" } });
  });

  it("escapes hostile titles, descriptions and names everywhere, and links only web addresses", async () => {
    const p = await fixtures.page({
      title: `<script>alert("t")</script>`,
      description: `"><img src=x onerror=alert(1)>`,
      homepageUrl: "javascript:alert(1)",
    });
    const id = await monitor("m");
    await fixtures.component(p.id, { monitorId: id, name: "<b>bold</b> & ]]> co" });
    await api.db.prisma.incident.create({ data: { workspaceId, monitorId: id, severity: "error", startedAt: new Date(), regions: [] } });

    const html = (await page(`/status/${p.slug}`)).body;
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>bold");
    expect(html).not.toContain("javascript:");
    expect(html).toContain("&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt; &amp; ]]&gt; co");

    const atom = (await page(`/status/${p.slug}/feed.atom`)).body;
    expect(XMLValidator.validate(atom)).toBe(true);
    const entry = new XMLParser({ ignoreAttributes: false }).parse(atom).feed.entry;
    // type="html": the text is HTML-escaped inside, so a reader shows it as written.
    expect(entry.title["#text"]).toBe("Outage: &lt;b&gt;bold&lt;/b&gt; &amp; ]]&gt; co");
    const badge = (await page(`/status/${p.slug}/badge.svg`)).body;
    expect(XMLValidator.validate(badge)).toBe(true);
    expect(JSON.parse((await page(`/status/${p.slug}/summary.json`)).body).page.name).toBe(`<script>alert("t")</script>`);
  });

  it("escapes hostile group names, component descriptions and monitor names, in text and attributes", async () => {
    const p = await fixtures.page();
    const group = await fixtures.group(p.id, `<script>g()</script> "Group" & 'co'`);
    const id = await monitor(`<svg onload="m()"> & 'mon'`);
    // Without a name of its own, the component shows its monitor's.
    await fixtures.component(p.id, { monitorId: id, name: "", groupId: group.id, description: `<img src=y onerror="d()"> & 'desc'` });
    await api.db.prisma.incident.create({ data: { workspaceId, monitorId: id, severity: "degraded", startedAt: new Date(), regions: [] } });

    const html = (await page(`/status/${p.slug}`)).body;
    for (const raw of ["<script>g", "<svg", "<img src=y", `"m()"`, `"d()"`, `"Group"`]) expect(html).not.toContain(raw);
    expect(html).toContain(`<h3 id="group-${group.id}">&lt;script&gt;g()&lt;/script&gt; &quot;Group&quot; &amp; `);
    expect(html).toContain(`class="name">&lt;svg onload=&quot;m()&quot;&gt; &amp; `);
    expect(html).toContain(`aria-label="&lt;svg onload=&quot;m()&quot;&gt; &amp; `);
    expect(html).toContain(`class="description">&lt;img src=y onerror=&quot;d()&quot;&gt; &amp; `);
    expect(html).toContain(`Degraded performance: &lt;svg onload=&quot;m()&quot;&gt; &amp; `);
  });

  it("keeps the bars of days counted before the upgrade: its migration sums each day's regions", async () => {
    const [fill] = migrationStatements("lean_ingest", 'INSERT INTO "all_region_daily_result_counts"');
    const day = utcDay(new Date(), 3);
    const migrated = await api.db.prisma.$transaction(async (tx) => {
      // The per-region table as it was before the migration, for this transaction only.
      await tx.$executeRawUnsafe(
        `CREATE TEMP TABLE daily_result_counts (monitor_id text, region text, day timestamp(3), successful int, degraded int, failed int) ON COMMIT DROP`,
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO daily_result_counts VALUES ('before-upgrade', 'hostA-ams', $1, 10, 1, 0), ('before-upgrade', 'hostB-fra', $1, 5, 0, 2)`,
        day,
      );
      await tx.$executeRawUnsafe(fill!);
      return tx.allRegionDailyResultCount.findMany({ where: { monitorId: "before-upgrade" } });
    });
    expect(migrated).toEqual([{ monitorId: "before-upgrade", day, successful: 15, degraded: 1, failed: 2 }]);
  });

  it("has ingest add results to the daily counts once, which are kept DAILY_AGGREGATE_RETENTION_DAYS (here its least, 91)", async () => {
    const id = await monitor("Counted");
    const now = new Date();
    const at = (daysAgo: number, minute = 0) => new Date(utcDay(now, daysAgo).getTime() + 3_600_000 + minute * 60_000).toISOString();
    const batch = [
      checkResult(id, "hostA-ams", at(1), "success"),
      checkResult(id, "hostA-ams", at(1, 1), "error"),
      checkResult(id, "hostA-ams", at(1, 2), "success"),
      checkResult(id, "hostB-fra", at(1), "degraded"),
      checkResult(id, "hostA-ams", at(95), "success"),
    ];
    await storeResults(api.db.prisma, batch, STATUS_RULES);
    await storeResults(api.db.prisma, batch, STATUS_RULES); // a redelivery counts nothing
    const days = () =>
      api.db.prisma.allRegionDailyResultCount.findMany({ where: { monitorId: id }, orderBy: { day: "asc" }, omit: { monitorId: true } });
    expect(await days()).toEqual([
      { day: utcDay(now, 95), successful: 1, degraded: 0, failed: 0 },
      { day: utcDay(now, 1), successful: 2, degraded: 1, failed: 1 },
    ]);
    await pruneResults(api.db.prisma, { resultDays: 14, dailyAggregateDays: PAGE_HISTORY.barDays + 1 }, now);
    expect((await days()).map((d) => d.day)).toEqual([utcDay(now, 1)]);
  });

  it("shows an unpublish through the management API at once", async () => {
    const p = await fixtures.page();
    expect((await page(`/status/${p.slug}`)).status).toBe(200);
    await api.statusPageClient(writeKey).unpublishStatusPage({ id: p.id });
    expect((await page(`/status/${p.slug}`)).status).toBe(404);
  });
});

describe("the public pages' cache", () => {
  let api: TestApi;
  let server: http.Server;
  let baseUrl: string;
  let queries = 0;
  const pageChanges = new Changes();

  /** The database as the public pages see it, counting every query they make. */
  const counting = (prisma: PrismaClient): PrismaClient =>
    new Proxy(prisma, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (typeof value === "function") return (...args: unknown[]) => (queries++, value.apply(target, args));
        if (value && typeof value === "object" && typeof property === "string" && !property.startsWith("_")) {
          return new Proxy(value, { get: (model, method) => (queries++, Reflect.get(model, method)) });
        }
        return value;
      },
    });

  beforeAll(async () => {
    api = await startTestApi("pglite");
    const router = FindMyWay<HTTPVersion.V1>();
    const hosts = new PageHosts("https://vigil.test", new Set(["vigil.test"]));
    publicStatusPageRoutes(router, {
      prisma: counting(api.db.prisma),
      statuses: api.pipeline.statuses,
      publicUrl: "https://vigil.test",
      pageChanges,
      access: new PageAccessControl(new PageSessions(randomBytes(32)), hosts),
      hosts,
      rates: new RequestRates(api.pipeline.redis, api.redisPrefix, REQUEST_LIMITS),
      logger: createLogger("silent", "test"),
    });
    server = http.createServer((req, res) => router.lookup(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it("serves a cached page without a database query, and drops it when the page changes", async () => {
    const keys = await api.workspace();
    const workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    const fixtures = statusPageFixtures(api.db.prisma, workspaceId);
    const p = await fixtures.page({ title: "Before", customDomain: "cached.example" });

    expect((await get(baseUrl, `/status/${p.slug}`)).body).toContain("<h1>Before</h1>");
    const afterFirst = queries;
    expect(afterFirst).toBeGreaterThan(0);
    const burst = await Promise.all(Array.from({ length: 20 }, () => get(baseUrl, `/status/${p.slug}`)));
    expect(burst.every((res) => res.status === 200)).toBe(true);
    expect((await get(baseUrl, `/status/${p.slug}/summary.json`)).status).toBe(200);
    expect(queries).toBe(afterFirst);

    // Changed behind the cache's back: still the cached copy (for at most 5 s)...
    await api.db.prisma.statusPage.update({ where: { id: p.id }, data: { title: "After" } });
    expect((await get(baseUrl, `/status/${p.slug}`)).body).toContain("<h1>Before</h1>");
    expect((await get(baseUrl, "/", { host: "cached.example" })).body).toContain("<h1>After</h1>");
    // ...until the change is published, which ends every copy at once.
    pageChanges.publish(p.id);
    expect((await get(baseUrl, `/status/${p.slug}`)).body).toContain("<h1>After</h1>");

    await api.db.prisma.statusPage.update({ where: { id: p.id }, data: { published: false } });
    pageChanges.publish(p.id);
    expect((await get(baseUrl, `/status/${p.slug}`)).status).toBe(404);
    expect((await get(baseUrl, "/", { host: "cached.example" })).status).toBe(404);

    // An unknown address is remembered too, until some page changes.
    const beforeUnknown = queries;
    await get(baseUrl, "/status/not-yet");
    await get(baseUrl, "/status/not-yet");
    expect(queries).toBeGreaterThan(beforeUnknown);
    const afterUnknown = queries;
    await get(baseUrl, "/status/not-yet");
    expect(queries).toBe(afterUnknown);
    const created = await fixtures.page({ slug: "not-yet" });
    pageChanges.publish(created.id);
    expect((await get(baseUrl, "/status/not-yet")).status).toBe(200);
  });
});
