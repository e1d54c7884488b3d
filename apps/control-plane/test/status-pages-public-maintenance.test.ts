import Ajv from "ajv";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { Periodicity, type MaintenanceService } from "@vigil/proto";
import type { StatusPageService } from "@vigil/proto/status-page";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { STATUSPAGE_SUMMARY_SCHEMA } from "./support/statuspage-shape";
import { parsedHtml } from "../../../test/html-fragment";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The part of a page from a marker on. */
const from = (html: string, marker: string) => html.slice(html.indexOf(marker));
const months = (html: string) => [...html.matchAll(/<h3 id="month-(\d{4}-\d{2})"/g)].map((m) => m[1]);

describe.each(BACKENDS)("maintenance on the public pages on %s", (backend) => {
  let api: TestApi;
  let pages: Client<typeof StatusPageService>;
  let windows: Client<typeof MaintenanceService>;
  let monitorId: string;
  let slugs = 0;
  const get = (path: string) => fetch(new URL(path, api.baseUrl), { redirect: "manual" });
  const html = async (path: string) => (await get(path)).text();
  const summaryOf = async (base: string) => (await (await get(`${base}/summary.json`)).json()) as { scheduled_maintenances: any[]; components: any[]; status: object; page: { url: string } };

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    pages = api.statusPageClient(keys.write.key);
    windows = api.maintenanceClient(keys.write.key);
    monitorId = (await api.client(keys.write.key).createTCPMonitor({ monitor: { name: "API", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
  });
  afterAll(() => api.close());

  async function newPage() {
    const slug = `public-maintenance-${++slugs}`;
    const pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug } })).statusPage!.id;
    const web = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Web", order: 1 } })).component!.id;
    const apiComponent = (await pages.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId, order: 2 } })).component!.id;
    return { pageId, slug, web, api: apiComponent, base: `/status/${slug}` };
  }
  const schedule = async (title: string, startsAt: Date, length: number, named: { pageComponentIds?: string[]; monitorIds?: string[] }, fields: object = {}) =>
    (await windows.createMaintenanceWindow({ maintenance: { title, startsAt: timestampFromDate(startsAt), endsAt: timestampFromDate(new Date(startsAt.getTime() + length)), ...named, ...fields } })).maintenance!;

  it("shows the maintenance going on and that of the next 7 days, its components under maintenance, and no other", async () => {
    const page = await newPage();
    const other = await newPage();
    const before = await html(page.base);
    expect(before).not.toContain('id="maintenance-title"');
    const now = Date.now();
    const active = await schedule("Database upgrade", new Date(now - 10 * MINUTE), 60 * MINUTE, { pageComponentIds: [page.web] }, {
      message: "We **upgrade** the database. <script>alert(1)</script>",
    });
    await schedule("Network work", new Date(now + 3 * DAY), 2 * 60 * MINUTE, { pageComponentIds: [page.api] });
    await schedule("Too far ahead", new Date(now + 8 * DAY), 60 * MINUTE, { pageComponentIds: [page.api] });
    await schedule("Monitors only", new Date(now - 10 * MINUTE), 60 * MINUTE, { monitorIds: [monitorId] });
    await schedule("Another page's", new Date(now - 10 * MINUTE), 60 * MINUTE, { pageComponentIds: [other.web] });
    await schedule("Over already", new Date(now - 3 * 60 * MINUTE), 60 * MINUTE, { pageComponentIds: [page.web] });

    // The page's cache heard of the windows.
    const body = await html(page.base);
    const section = from(body, 'id="maintenance-title"').slice(0, from(body, 'id="maintenance-title"').indexOf("</section>"));
    expect(section.indexOf("Database upgrade")).toBeGreaterThan(-1);
    expect(section.indexOf("Database upgrade")).toBeLessThan(section.indexOf("Network work"));
    expect(section).toContain("In progress");
    expect(section).toContain("Scheduled");
    for (const absent of ["Too far ahead", "Monitors only", "Another page&#x27;s", "Over already"]) expect(section).not.toContain(absent);
    expect(section).toContain("<strong>upgrade</strong>");
    expect(parsedHtml(section).tags).not.toContain("script");
    expect(body).toContain("Service Under Maintenance");
    const components = from(body, 'id="components-title"');
    expect(components.slice(0, components.indexOf("API"))).toContain("Under maintenance");

    const summary = await summaryOf(page.base);
    const validate = new Ajv({ strict: false }).compile(STATUSPAGE_SUMMARY_SCHEMA);
    expect(validate(summary) ? [] : validate.errors).toEqual([]);
    expect(summary.scheduled_maintenances.map((m) => [m.name, m.status])).toEqual([
      ["Database upgrade", "in_progress"],
      ["Network work", "scheduled"],
    ]);
    const [going] = summary.scheduled_maintenances;
    expect(going).toMatchObject({
      impact: "maintenance",
      scheduled_for: new Date(now - 10 * MINUTE).toISOString(),
      shortlink: expect.stringMatching(new RegExp(`^${summary.page.url}#maintenance-${active.id}\\.`)),
      incident_updates: [expect.objectContaining({ status: "in_progress", body: "We **upgrade** the database. <script>alert(1)</script>" })],
      components: [expect.objectContaining({ id: page.web, status: "under_maintenance" })],
    });
    expect(summary.components.find((c) => c.id === page.web).status).toBe("under_maintenance");
    expect(summary.components.find((c) => c.id === page.api).status).toBe("operational");
    expect(summary.status).toEqual({ indicator: "none", description: "Service Under Maintenance" });

    // The feed carries both as entries: in progress since its start, scheduled since it was written.
    const feedBody = await html(`${page.base}/feed.atom`);
    expect(XMLValidator.validate(feedBody)).toBe(true);
    const entries = (new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" }).parse(feedBody).feed.entry ?? []) as {
      id: string;
      title: { "#text": string };
      updated: string;
      summary: { "#text": string };
    }[];
    const told = entries.filter((e) => e.id.startsWith("urn:vigil:maintenance:"));
    expect(told.map((e) => e.title["#text"]).sort()).toEqual(["Database upgrade: In progress", "Network work: Scheduled"]);
    const inProgress = told.find((e) => e.title["#text"].startsWith("Database upgrade"))!;
    expect(inProgress.id).toMatch(new RegExp(`^urn:vigil:maintenance:${active.id}\\.`));
    expect(new Date(inProgress.updated).getTime()).toBe(now - 10 * MINUTE);
    expect(parsedHtml(inProgress.summary["#text"]).tags).toContain("strong");
    expect(parsedHtml(inProgress.summary["#text"]).tags).not.toContain("script");

    // Deleted, it leaves the page at once.
    await windows.deleteMaintenanceWindow({ id: active.id });
    expect(await html(page.base)).not.toContain("Database upgrade");
    expect((await summaryOf(page.base)).components.find((c) => c.id === page.web).status).toBe("operational");
  });

  it("lists past maintenances by month on /history beside incidents, newest first", async () => {
    const page = await newPage();
    const now = new Date();
    const monthsAgo = (n: number, day = 10) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, day, 12));
    await schedule("Old upgrade", monthsAgo(2), 60 * MINUTE, { pageComponentIds: [page.web] });
    await schedule("Ancient upgrade", monthsAgo(13), 60 * MINUTE, { pageComponentIds: [page.web] });
    await schedule("Future upgrade", new Date(now.getTime() + DAY), 60 * MINUTE, { pageComponentIds: [page.web] });
    const { incident } = await pages.createStatusPageIncident({ incident: { pageId: page.pageId, title: "An outage", status: "resolved", message: "m" } });
    await api.db.prisma.statusPageIncident.update({ where: { id: incident!.id }, data: { createdAt: monthsAgo(1) } });
    // Every 7 days from three weeks ago, three times: three past occurrences.
    const weekly = await schedule("Weekly restart", new Date(now.getTime() - 21 * DAY), 30 * MINUTE, { pageComponentIds: [page.api] }, { recurrence: "FREQ=DAILY;INTERVAL=7;COUNT=3", timezone: "Europe/Berlin" });

    const body = await html(`${page.base}/history`);
    const history = from(body, "Incident history</h2>");
    expect(history).not.toContain("Ancient upgrade");
    expect(history).not.toContain("Future upgrade");
    expect(history.indexOf("An outage")).toBeLessThan(history.indexOf("Old upgrade"));
    expect(history.match(/Weekly restart/g)).toHaveLength(3);
    expect(history).toContain("Completed");
    const shown = months(body);
    expect(shown).toEqual([...new Set(shown)]);
    expect(shown).toContain(monthsAgo(2).toISOString().slice(0, 7));
    expect(shown).toContain(monthsAgo(1).toISOString().slice(0, 7));
    expect(weekly.nextOccurrences).toEqual([]);
  });
});
