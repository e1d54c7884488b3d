import Ajv from "ajv";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Client } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import type { StatusPageService } from "@vigil/proto/status-page";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { STATUSPAGE_SUMMARY_SCHEMA } from "./support/statuspage-shape";
import { parsedHtml } from "../../../test/html-fragment";

const HOSTILE = [
  "We found it: **the database** ran out of disk.",
  "",
  "<script>alert('x')</script> <img src=x onerror=alert(1)>",
  "[click me](javascript:alert(1)) and [details](https://example.com/details)",
].join("\n");

/** The part of a page from the element with this id's opening tag on (its section). */
const from = (html: string, marker: string) => html.slice(html.indexOf(marker));
const months = (html: string) => [...html.matchAll(/<h3 id="month-(\d{4}-\d{2})"/g)].map((m) => m[1]);

describe.each(BACKENDS)("incidents on the public pages on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof StatusPageService>;
  let workspaceId: string;
  let monitorId: string;
  let slugs = 0;
  const get = (path: string) => fetch(new URL(path, api.baseUrl), { redirect: "manual" });
  const text = async (path: string) => {
    const res = await get(path);
    return { status: res.status, body: await res.text(), type: res.headers.get("content-type") };
  };

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    client = api.statusPageClient(keys.write.key);
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    monitorId = (await api.client(keys.write.key).createTCPMonitor({ monitor: { name: "API", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
  });
  afterAll(() => api.close());

  /** A page with a static Web component and one showing the monitor (API). */
  async function newPage(fields: object = {}) {
    const slug = `public-incidents-${++slugs}`;
    const pageId = (await client.createStatusPage({ statusPage: { title: "Acme", slug, ...fields } })).statusPage!.id;
    const web = (await client.createStatusPageComponent({ component: { pageId, type: "static", name: "Web", order: 1 } })).component!.id;
    const apiComponent = (await client.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId, order: 2 } })).component!.id;
    return { pageId, slug, web, api: apiComponent, base: `/status/${slug}` };
  }
  const automatic = (startedAt: Date, resolvedAt: Date | null, severity = "error") =>
    api.db.prisma.incident.create({ data: { workspaceId, monitorId, severity, startedAt, resolvedAt, regions: [] } });
  const summaryOf = async (base: string) => (await (await get(`${base}/summary.json`)).json()) as { incidents: any[]; components: any[]; status: { indicator: string } };

  it("shows an open incident with its updates newest first, its Markdown rendered inert, and its components at their impact", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({
      incident: {
        pageId: page.pageId,
        title: "Checkout errors",
        status: "investigating",
        message: "We are looking into failed checkouts.",
        components: [
          { componentId: page.web, impact: "major_outage" },
          { componentId: page.api, impact: "degraded_performance" },
        ],
      },
    });
    await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "identified", message: HOSTILE });

    const { status, body } = await text(page.base);
    expect(status).toBe(200);
    const incidents = from(body, 'id="incidents-title"');
    expect(incidents).toContain(`<a href="${page.base}/incidents/${incident!.id}">Checkout errors</a>`);
    expect(incidents.indexOf("<strong>Identified</strong>")).toBeLessThan(incidents.indexOf("<strong>Investigating</strong>"));
    expect(incidents.indexOf("<strong>Identified</strong>")).toBeGreaterThan(-1);
    // Markdown formats; raw HTML is text; only the web link is a link.
    const markdown = parsedHtml(incidents.slice(0, incidents.indexOf("</main>")));
    expect(markdown.tags).not.toContain("script");
    expect(markdown.tags).not.toContain("img");
    expect(markdown.attributes.filter((a) => a.startsWith("on"))).toEqual([]);
    expect(markdown.links).toContain("https://example.com/details");
    expect(markdown.links.filter((href) => href?.startsWith("javascript"))).toEqual([]);
    expect(incidents).toContain("<strong>the database</strong>");
    expect(incidents).toContain("&lt;script&gt;alert('x')&lt;/script&gt;");

    // The monitor is up; the written impacts make Web a major outage and API degraded.
    const summary = await summaryOf(page.base);
    expect(summary.components.filter((c) => !c.group).map((c) => [c.name, c.status])).toEqual([
      ["Web", "major_outage"],
      ["API", "degraded_performance"],
    ]);
    expect(summary.status.indicator).toBe("major");
    expect(body).toContain("Partial System Outage");

    // The worse of the machine's status and the impact written: a failing monitor is a major outage.
    await api.db.prisma.monitor.update({ where: { id: monitorId }, data: { status: "error" } });
    try {
      await client.updateStatusPageIncident({ id: incident!.id, incident: { title: "Checkout errors" } });
      await api.db.prisma.statusPageComponent.update({ where: { id: page.api }, data: { description: "touched" } });
      await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "identified", message: "still" });
      expect((await summaryOf(page.base)).components.filter((c) => !c.group).map((c) => c.status)).toEqual(["major_outage", "major_outage"]);
    } finally {
      await api.db.prisma.monitor.update({ where: { id: monitorId }, data: { status: "active" } });
    }
  });

  it("fills summary.json's incidents with incident_updates in Statuspage's shape", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({
      incident: { pageId: page.pageId, title: "Slow API", status: "identified", message: "A slow query", components: [{ componentId: page.api, impact: "partial_outage" }] },
    });
    const monitoring = (await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "monitoring", message: "Fix deployed" })).incident!;
    const summary = await summaryOf(page.base);
    const validate = new Ajv({ strict: false }).compile(STATUSPAGE_SUMMARY_SCHEMA);
    expect(validate.errors ?? (validate(summary) ? [] : validate.errors)).toEqual([]);
    expect(summary.incidents).toHaveLength(1);
    const [shown] = summary.incidents;
    expect(shown).toMatchObject({
      id: incident!.id,
      name: "Slow API",
      status: "monitoring",
      impact: "major",
      resolved_at: null,
      shortlink: `${(summary as unknown as { page: { url: string } }).page.url}/incidents/${incident!.id}`,
      components: [expect.objectContaining({ id: page.api, status: "partial_outage" })],
    });
    expect(shown.monitoring_at).toBe(shown.incident_updates[0].created_at);
    expect(shown.incident_updates.map((u: { status: string; body: string; incident_id: string }) => [u.status, u.body, u.incident_id])).toEqual([
      ["monitoring", "Fix deployed", incident!.id],
      ["identified", "A slow query", incident!.id],
    ]);
    expect(shown.incident_updates[0].id).toBe(monitoring.updates[0]!.id);

    // Resolved, it leaves summary.json's incidents, and the component is operational again.
    await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "resolved", message: "Fixed" });
    const after = await summaryOf(page.base);
    expect(after.incidents).toEqual([]);
    expect(after.components.find((c) => c.id === page.api).status).toBe("operational");
    expect(validate(after)).toBe(true);
  });

  it("carries each update as an entry of the Atom feed", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "Mail delays", status: "investigating", message: "Looking" } });
    const resolved = (await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "resolved", message: HOSTILE })).incident!;
    const res = await text(`${page.base}/feed.atom`);
    expect(res.type).toBe("application/atom+xml; charset=utf-8");
    expect(XMLValidator.validate(res.body)).toBe(true);
    const feed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" }).parse(res.body).feed;
    const entries = feed.entry as { id: string; title: { "#text": string }; link: { "@_href": string }; summary: { "#text": string } }[];
    expect(entries.map((e) => [e.id, e.title["#text"]])).toEqual([
      [`urn:vigil:incident-update:${resolved.updates[0]!.id}`, "Mail delays: Resolved"],
      [`urn:vigil:incident-update:${resolved.updates[1]!.id}`, "Mail delays: Investigating"],
    ]);
    expect(entries[0]!.link["@_href"]).toMatch(new RegExp(`${page.base}/incidents/${incident!.id}$`));
    // The entry's HTML is the Markdown rendered: formatting kept, raw HTML as text, no script link.
    const html = parsedHtml(entries[0]!.summary["#text"]);
    expect(html.tags).toContain("strong");
    expect(html.tags).not.toContain("script");
    expect(html.links).toEqual(["https://example.com/details"]);
  });

  it("carries a postmortem as an entry of its own, dated when its words last changed, gone when it is cleared", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "Disk full", status: "resolved", message: "Fixed" } });
    const id = incident!.id;
    const entries = async () => {
      const body = (await text(`${page.base}/feed.atom`)).body;
      expect(XMLValidator.validate(body)).toBe(true);
      const feed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" }).parse(body).feed;
      return (feed.entry as { id: string; title: { "#text": string }; updated: string; summary: { "#text": string } }[]).filter((e) => e.id === `urn:vigil:incident-postmortem:${id}`);
    };
    const writtenAt = async () => (await api.db.prisma.statusPageIncident.findUniqueOrThrow({ where: { id } })).postmortemAt;
    expect(await entries()).toEqual([]);

    await client.updateStatusPageIncident({ id, incident: { postmortem: "## What happened\n\nThe **disk** filled up." } });
    const first = await writtenAt();
    expect(first).not.toBeNull();
    const [entry] = await entries();
    expect(entry!.title["#text"]).toBe("Disk full: Postmortem");
    expect(new Date(entry!.updated).getTime()).toBe(first!.getTime());
    expect(parsedHtml(entry!.summary["#text"]).tags).toEqual(expect.arrayContaining(["h2", "strong"]));

    // The same words sent again with a new title leave its date alone.
    await client.updateStatusPageIncident({ id, incident: { title: "Disk full on db-1", postmortem: "## What happened\n\nThe **disk** filled up." } });
    expect(await writtenAt()).toEqual(first);
    expect((await entries())[0]!.title["#text"]).toBe("Disk full on db-1: Postmortem");

    await client.updateStatusPageIncident({ id, incident: { postmortem: "" }, updateMask: { paths: ["postmortem"] } });
    expect(await writtenAt()).toBeNull();
    expect(await entries()).toEqual([]);
  });

  it("gives each incident a page of its own, with its updates and, once resolved, its postmortem", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({
      incident: { pageId: page.pageId, title: "Outage of the week", status: "investigating", message: "First", components: [{ componentId: page.web, impact: "partial_outage" }] },
    });
    await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "resolved", message: "Fixed" });
    await client.updateStatusPageIncident({ id: incident!.id, incident: { postmortem: "## What happened\n\nA *cable*. <script>x</script>" } });
    const res = await text(`${page.base}/incidents/${incident!.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain("<title>Outage of the week · Acme status</title>");
    expect(res.body).toContain("Web: <span class=\"status-partial_outage\">Partial outage</span>");
    const postmortem = from(res.body, 'id="postmortem-title"');
    expect(postmortem).toContain("<h2>What happened</h2>");
    expect(postmortem).toContain("<em>cable</em>");
    expect(postmortem).toContain("&lt;script&gt;x&lt;/script&gt;");
    expect(from(res.body, 'id="updates-title"').indexOf("Fixed")).toBeLessThan(from(res.body, 'id="updates-title"').indexOf("First"));

    // An automatic incident has a page too; an unknown id, or another page's incident, is not found.
    const machine = await automatic(new Date(Date.now() - 3_600_000), new Date());
    const auto = await text(`${page.base}/incidents/${machine.id}`);
    expect(auto.status).toBe(200);
    expect(auto.body).toContain("Outage: API");
    const other = await newPage();
    for (const path of [`${page.base}/incidents/0190f000-0000-7000-8000-000000000000`, `${other.base}/incidents/${incident!.id}`]) {
      const missing = await text(path);
      expect([path, missing.status]).toEqual([path, 404]);
      expect(missing.body).toContain("Page not found");
    }
  });

  it("shows a written incident in place of the automatic one it tells of, and neither when it is internal", async () => {
    const page = await newPage();
    const machine = await automatic(new Date(Date.now() - 600_000), new Date());
    expect((await text(page.base)).body).toContain(`/incidents/${machine.id}"`);
    const { incident } = await client.createStatusPageIncident({
      incident: { pageId: page.pageId, title: "API errors, explained", status: "identified", message: "A bad deploy", monitorIncidentId: machine.id },
    });
    const told = (await text(page.base)).body;
    expect(told).not.toContain(`/incidents/${machine.id}"`);
    expect(told).toContain(`/incidents/${incident!.id}">API errors, explained</a>`);
    expect((await text(`${page.base}/incidents/${machine.id}`)).status).toBe(404);

    await client.updateStatusPageIncident({ id: incident!.id, incident: { internal: true } });
    const hidden = (await text(page.base)).body;
    expect(hidden).not.toContain(`/incidents/${machine.id}"`);
    expect(hidden).not.toContain("API errors, explained");
    expect((await text(`${page.base}/incidents/${incident!.id}`)).status).toBe(404);
    expect((await text(`${page.base}/history`)).body).not.toContain("API errors, explained");
  });

  it("lists past incidents by month on /history, newest first, for the last 12 months", async () => {
    const page = await newPage();
    const now = new Date();
    const monthsAgo = (n: number, day = 10) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, day, 12));
    const monthKey = (n: number) => monthsAgo(n).toISOString().slice(0, 7);
    await automatic(monthsAgo(1), monthsAgo(1, 11));
    await automatic(monthsAgo(13), monthsAgo(13, 11));
    const { incident } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "Written long ago", status: "resolved", message: "m" } });
    await api.db.prisma.statusPageIncident.update({ where: { id: incident!.id }, data: { createdAt: monthsAgo(3) } });
    const { incident: current } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "This month", status: "investigating", message: "m" } });

    const res = await text(`${page.base}/history`);
    expect(res.status).toBe(200);
    expect(months(res.body)).toEqual([monthKey(0), monthKey(1), monthKey(3)]);
    const history = from(res.body, "Incident history</h2>");
    expect(history.indexOf("This month")).toBeLessThan(history.indexOf("Outage: API"));
    expect(history.indexOf("Outage: API")).toBeLessThan(history.indexOf("Written long ago"));
    expect(history).toContain(`${page.base}/incidents/${current!.id}`);
    expect(history).toContain(monthsAgo(3).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" }));

    const empty = await newPage();
    await api.db.prisma.statusPageComponent.delete({ where: { id: empty.api } });
    expect((await text(`${empty.base}/history`)).body).toContain("No incidents or maintenance in the last 12 months.");
  });

  it("applies a protected page's access to its history and incident pages", async () => {
    const page = await newPage({ accessType: "password", password: "correct horse battery staple" });
    const { incident } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "Secret trouble", status: "investigating", message: "m" } });
    for (const path of [`${page.base}/history`, `${page.base}/incidents/${incident!.id}`, `${page.base}/feed.atom`, `${page.base}/summary.json`]) {
      const res = await text(path);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.body).not.toContain("Secret trouble");
    }
    // Signed in with the password, the visitor reads them all.
    const signIn = await fetch(new URL(`${page.base}/sign-in`, api.baseUrl), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ password: "correct horse battery staple" }),
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    for (const path of [page.base, `${page.base}/history`, `${page.base}/incidents/${incident!.id}`, `${page.base}/feed.atom`, `${page.base}/summary.json`]) {
      const res = await fetch(new URL(path, api.baseUrl), { headers: { cookie } });
      expect([path, res.status, res.headers.get("cache-control")]).toEqual([path, 200, "private, no-cache"]);
      expect(await res.text()).toContain("Secret trouble");
    }
  });

  it("shows an update at once: writes end the cached page", async () => {
    const page = await newPage();
    const { incident } = await client.createStatusPageIncident({ incident: { pageId: page.pageId, title: "Cache", status: "investigating", message: "first words" } });
    for (const path of [page.base, `${page.base}/incidents/${incident!.id}`, `${page.base}/summary.json`, `${page.base}/feed.atom`]) {
      expect([path, (await text(path)).body]).toEqual([path, expect.stringContaining("first words")]);
    }
    expect((await text(`${page.base}/history`)).body).toContain(">Cache</a>");
    await client.addStatusPageIncidentUpdate({ incidentId: incident!.id, status: "monitoring", message: "second words" });
    await client.updateStatusPageIncident({ id: incident!.id, incident: { title: "Cache, renamed" } });
    for (const path of [page.base, `${page.base}/incidents/${incident!.id}`, `${page.base}/summary.json`, `${page.base}/feed.atom`]) {
      expect([path, (await text(path)).body]).toEqual([path, expect.stringContaining("second words")]);
    }
    expect((await text(`${page.base}/history`)).body).toContain("Cache, renamed");
  });
});
