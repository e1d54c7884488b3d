/**
 * Text an attacker sends where a person's words belong: U+0000, which the
 * database cannot store, control characters and noncharacters, which no name
 * or title holds and XML cannot, and fields of any length. Each is refused
 * naming the field (invalid_argument / 400), never answered 500, over the
 * RPC API, the /v1 endpoints and the public pages, on both backends.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { XMLValidator } from "fast-xml-parser";
import { LIMITS } from "@vigil/domain";
import { Periodicity, StringComparator } from "@vigil/proto";
import { recordingLogger } from "../../../test/recording-logger";
import { rejection } from "./support/codes";
import { BACKENDS, jsonOf, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { createPage, request } from "./support/page-access";

const periodicity = Periodicity.PERIODICITY_1M;
const site = { name: "site", url: "https://example.com/", periodicity };

/** The call is refused with invalid_argument, naming each of `fields` (and nothing is answered internal). */
async function expectViolations(call: Promise<unknown>, fields: string[], rule: RegExp) {
  const error = await rejection(call);
  expect(Code[error.code]).toBe(Code[Code.InvalidArgument]);
  const violations = error.rawMessage.split("; ");
  for (const field of fields) expect(violations).toContainEqual(expect.stringMatching(new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}: ${rule.source}`)));
}

const NOT_STORABLE = /must not contain U\+0000 \(NUL\) or unpaired surrogates/;
const NOT_READABLE = /must not contain control characters/;
const TOO_LONG = (n: number) => new RegExp(`must be at most ${n} characters`);

describe.each(BACKENDS)("hostile text on %s", (backend) => {
  let api: TestApi;
  let keys: WorkspaceKeys;
  const { logger, lines } = recordingLogger();

  beforeAll(async () => {
    api = await startTestApi(backend, { logger });
    keys = await api.workspace();
  });
  afterAll(() => api.close());
  beforeEach(() => lines.splice(0));

  const errorLines = () => lines.filter((line) => line.level === "error");

  describe("U+0000", () => {
    it("is refused in every text field of a monitor, naming each", async () => {
      const nul = "a\u0000b";
      await expectViolations(
        api.client(keys.write.key).createHTTPMonitor({
          monitor: {
            name: nul,
            url: `https://example.com/${nul}`,
            periodicity,
            body: nul,
            description: nul,
            headers: [{ key: "x-a", value: nul }],
            bodyAssertions: [{ target: nul, comparator: StringComparator.CONTAINS }],
            headerAssertions: [{ key: "x-b", target: nul, comparator: StringComparator.CONTAINS }],
            openTelemetry: { endpoint: "", headers: [{ key: "x-c", value: nul }] },
          },
        }),
        ["monitor.name", "monitor.body", "monitor.description", "monitor.headers[0].value", "monitor.bodyAssertions[0].target", "monitor.headerAssertions[0].target", "monitor.openTelemetry.headers[0].value"],
        NOT_STORABLE,
      );
      await expectViolations(api.client(keys.write.key).createHTTPMonitor({ monitor: { ...site, externalId: nul } }), ["monitor.externalId"], NOT_STORABLE);
      expect(await api.db.prisma.monitor.count()).toBe(0);
    });

    it("is refused in an unpaired surrogate's place too", async () => {
      // A client's encoder would send U+FFFD for it; JSON can escape one.
      const body = '{"monitor":{"name":"site","url":"https://example.com/","periodicity":"PERIODICITY_1M","body":"a\\ud800b"}}';
      const res = await api.fetch("/monitor.v1.MonitorService/CreateHTTPMonitor", { method: "POST", headers: { "content-type": "application/json", "x-service-key": keys.write.key }, body });
      expect({ status: res.status, body: await jsonOf(res) }).toEqual({ status: 400, body: { code: "invalid_argument", message: expect.stringMatching(/HTTPMonitor\.body/) } });
    });

    it("is refused in pages, components, groups and channels", async () => {
      const pages = api.statusPageClient(keys.write.key);
      await expectViolations(pages.createStatusPage({ statusPage: { title: "a\u0000", slug: "nul", description: "\u0000" } }), ["statusPage.title", "statusPage.description"], NOT_STORABLE);
      const page = (await pages.createStatusPage({ statusPage: { title: "Status", slug: `nul-${backend}` } })).statusPage!;
      await expectViolations(pages.createStatusPageComponent({ component: { pageId: page.id, type: "static", name: "\u0000" } }), ["component.name"], NOT_STORABLE);
      await expectViolations(pages.createStatusPageComponentGroup({ group: { pageId: page.id, name: "\u0000" } }), ["group.name"], NOT_STORABLE);
      await expectViolations(
        pages.createStatusPageIncident({ incident: { pageId: page.id, title: "\u0000", status: "resolved", message: "a\u0000", postmortem: "\u0000", components: [{ componentId: "\u0000", impact: "major_outage" }] } }),
        ["incident.title", "incident.message", "incident.postmortem", "incident.components[0].componentId"],
        NOT_STORABLE,
      );
      const incident = (await pages.createStatusPageIncident({ incident: { pageId: page.id, title: "t", status: "investigating", message: "m" } })).incident!;
      await expectViolations(pages.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "identified", message: "\u0000" }), ["message"], NOT_STORABLE);
      await expectViolations(
        api.notificationClient(keys.write.key).createNotification({
          notification: { name: "\u0000", providerType: "webhook", monitorIds: ["\u0000"], provider: { case: "webhook", value: { endpoint: "https://example.com/hook", headers: [{ key: "x", value: "\u0000" }] } } },
        }),
        ["notification.name", "notification.monitorIds[0]", "notification.webhook.headers[0].value"],
        NOT_STORABLE,
      );
    });

    it("is refused in every id a request names, before any lookup", async () => {
      const id = "0197\u0000";
      const rule = /must not contain U\+0000/;
      await expectViolations(api.client(keys.read.key).getMonitor({ id }), ["id"], rule);
      await expectViolations(api.client(keys.write.key).deleteMonitor({ id }), ["id"], rule);
      await expectViolations(api.incidents(keys.read.key).getIncident({ id }), ["id"], rule);
      await expectViolations(api.incidents(keys.read.key).listIncidents({ monitorId: id }), ["monitorId"], rule);
      await expectViolations(api.statusPageClient(keys.read.key).getStatusPage({ id }), ["id"], rule);
      await expectViolations(api.statusPageClient(keys.read.key).listStatusPageComponents({ pageId: id }), ["pageId"], rule);
      await expectViolations(api.statusPageClient(keys.read.key).getStatusPageIncident({ id }), ["id"], rule);
      await expectViolations(api.statusPageClient(keys.read.key).listStatusPageIncidents({ pageId: id }), ["pageId"], rule);
      await expectViolations(api.statusPageClient(keys.write.key).addStatusPageIncidentUpdate({ incidentId: id, status: "resolved", message: "m" }), ["incidentId"], rule);
      await expectViolations(api.notificationClient(keys.read.key).getNotification({ id }), ["id"], rule);
      expect(errorLines()).toEqual([]);
    });

    it("in a path is answered 400, with and without a key, and logs no error", async () => {
      const paths = ["/status/%00", "/status/%00/summary.json", "/status/%00/badge.svg", "/status/%00/feed.atom", "/status/%00/history", "/status/%00/incidents/x", "/status/x/incidents/%00", "/status/%00/sign-in", "/sign-in/%00", "/status/a%0Ab"];
      for (const path of paths) {
        const answer = await request(api.baseUrl, path);
        expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      }
      const signIn = await request(api.baseUrl, "/status/%00/sign-in", { method: "POST", form: { password: "x" } });
      expect(signIn.status).toBe(400);
      const revoke = await api.fetch("/v1/api-key/%00", { method: "DELETE", headers: { "x-service-key": keys.write.key } });
      expect({ status: revoke.status, body: await jsonOf(revoke) }).toEqual({
        status: 400,
        body: { code: "invalid_argument", message: "the request's path must not contain control characters" },
      });
      expect(errorLines()).toEqual([]);
    });
  });

  describe("names and titles", () => {
    const unreadable = ["bell\u0007", "two\nlines", "tab\there", "del\u007f", "c1\u0085", "non\ufffe", "non\uffff"];

    it("refuse control characters and noncharacters, where a description takes tabs and line breaks", async () => {
      const monitors = api.client(keys.write.key);
      for (const name of unreadable) {
        await expectViolations(monitors.createHTTPMonitor({ monitor: { ...site, name } }), ["monitor.name"], NOT_READABLE);
      }
      await expectViolations(monitors.createHTTPMonitor({ monitor: { ...site, description: "bell\u0007" } }), ["monitor.description"], NOT_READABLE);
      const created = (await monitors.createHTTPMonitor({ monitor: { ...site, name: "Ünïcode ✓ 🚀", description: "first line\n\tsecond line\r\n" } })).monitor!;
      expect({ name: created.name, description: created.description }).toEqual({ name: "Ünïcode ✓ 🚀", description: "first line\n\tsecond line\r\n" });
      await expectViolations(monitors.updateHTTPMonitor({ id: created.id, monitor: { name: "non\ufffe" } }), ["monitor.name"], NOT_READABLE);
    });

    it("refuse them in pages, components, groups and channels", async () => {
      const pages = api.statusPageClient(keys.write.key);
      await expectViolations(pages.createStatusPage({ statusPage: { title: "Status\u001b[31m", slug: "ctl" } }), ["statusPage.title"], NOT_READABLE);
      const page = (await pages.createStatusPage({ statusPage: { title: "Status", slug: `ctl-${backend}` } })).statusPage!;
      await expectViolations(pages.updateStatusPage({ id: page.id, statusPage: { title: "a\u0001" } }), ["statusPage.title"], NOT_READABLE);
      await expectViolations(pages.createStatusPageComponent({ component: { pageId: page.id, type: "static", name: "a\u0002" } }), ["component.name"], NOT_READABLE);
      await expectViolations(pages.createStatusPageComponentGroup({ group: { pageId: page.id, name: "a\uffff" } }), ["group.name"], NOT_READABLE);
      // A message is Markdown of several lines: tabs and line breaks are its own, other control characters are not.
      await expectViolations(pages.createStatusPageIncident({ incident: { pageId: page.id, title: "two\nlines", status: "identified", message: "bell\u0007" } }), ["incident.title", "incident.message"], NOT_READABLE);
      const incident = (await pages.createStatusPageIncident({ incident: { pageId: page.id, title: "t", status: "identified", message: "line\n\tindented\r\n" } })).incident!;
      expect(incident.updates[0]!.message).toBe("line\n\tindented\r\n");
      await expectViolations(pages.updateStatusPageIncident({ id: incident.id, incident: { title: "non\ufffe" } }), ["incident.title"], NOT_READABLE);
      await expectViolations(
        api.notificationClient(keys.write.key).createNotification({ notification: { name: "a\u0003", providerType: "webhook", provider: { case: "webhook", value: { endpoint: "https://example.com/hook" } } } }),
        ["notification.name"],
        NOT_READABLE,
      );
    });

    it("stored before the rule, still make well-formed XML of the feed and the badge", async () => {
      const stored = await createPage(api.db.prisma, keys.slug, { accessType: "public" });
      await api.db.prisma.statusPage.update({ where: { id: stored.id }, data: { title: "Old\u0001\u0008\u001f\ufffe\uffff title", published: true } });
      for (const companion of ["badge.svg", "feed.atom"]) {
        const answer = await request(api.baseUrl, `/status/${stored.slug}/${companion}`);
        expect(answer.status).toBe(200);
        expect({ companion, valid: XMLValidator.validate(answer.body) }).toEqual({ companion, valid: true });
        expect(answer.body).toContain("Old title");
      }
    });
  });

  describe("URLs", () => {
    it("refuse line breaks, tabs and spaces that the URL parser would drop", async () => {
      const monitors = api.client(keys.write.key);
      const rule = /must not contain spaces, line breaks or other control characters/;
      for (const url of ["https://exa\r\nmple.com/", "https://example.com/\tpath", " https://example.com/", "https://example.com/a\nHost: evil"]) {
        await expectViolations(monitors.createHTTPMonitor({ monitor: { ...site, url } }), ["monitor.url"], rule);
      }
      await expectViolations(
        api.notificationClient(keys.write.key).createNotification({ notification: { providerType: "slack", provider: { case: "slack", value: { webhookUrl: "https://hooks.slack.com/\r\nx" } } } }),
        ["notification.slack.webhookUrl"],
        rule,
      );
    });
  });

  describe("lengths", () => {
    it("bound a monitor's body, header values and assertion targets", async () => {
      const monitors = api.client(keys.write.key);
      const over = (n: number) => "x".repeat(n + 1);
      await expectViolations(
        monitors.createHTTPMonitor({
          monitor: {
            ...site,
            body: over(LIMITS.httpBodyMaxChars),
            headers: [{ key: "x-a", value: over(LIMITS.headerValueMaxChars) }],
            bodyAssertions: [{ target: over(LIMITS.assertionTargetMaxChars), comparator: StringComparator.CONTAINS }],
            headerAssertions: [{ key: "x-b", target: over(LIMITS.assertionTargetMaxChars), comparator: StringComparator.EQUAL }],
            openTelemetry: { endpoint: "", headers: [{ key: "x-c", value: over(LIMITS.headerValueMaxChars) }] },
          },
        }),
        ["monitor.body"],
        TOO_LONG(LIMITS.httpBodyMaxChars),
      );
      const error = await rejection(monitors.createHTTPMonitor({ monitor: { ...site, headers: [{ key: "x-a", value: over(LIMITS.headerValueMaxChars) }] } }));
      expect(error.rawMessage).toBe(`monitor.headers[0].value: must be at most ${LIMITS.headerValueMaxChars} characters`);
      await expectViolations(
        monitors.createDNSMonitor({ monitor: { name: "zone", uri: "example.com", periodicity, recordAssertions: [{ record: "A", target: over(LIMITS.assertionTargetMaxChars) }] } }),
        ["monitor.recordAssertions[0].target"],
        TOO_LONG(LIMITS.assertionTargetMaxChars),
      );
      await expectViolations(
        api.notificationClient(keys.write.key).createNotification({
          notification: { providerType: "webhook", provider: { case: "webhook", value: { endpoint: "https://example.com/hook", headers: [{ key: "x", value: over(LIMITS.headerValueMaxChars) }] } } },
        }),
        ["notification.webhook.headers[0].value"],
        TOO_LONG(LIMITS.headerValueMaxChars),
      );
      const largest = await monitors.createHTTPMonitor({
        monitor: {
          ...site,
          body: "x".repeat(LIMITS.httpBodyMaxChars),
          headers: [{ key: "x-a", value: "v".repeat(LIMITS.headerValueMaxChars) }],
          bodyAssertions: [{ target: "t".repeat(LIMITS.assertionTargetMaxChars), comparator: StringComparator.CONTAINS }],
        },
      });
      expect(largest.monitor?.body?.length).toBe(LIMITS.httpBodyMaxChars);
    });
  });
});

describe.each(BACKENDS)("the monitors a workspace may have on %s", (backend) => {
  const QUOTA = 3;
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi(backend, { limits: { monitorsPerWorkspace: QUOTA } })));
  afterAll(() => api.close());

  it("are counted: one more is resource_exhausted, and a deleted one makes room", async () => {
    const client = api.client((await api.workspace()).write.key);
    const made = [];
    for (let i = 0; i < QUOTA; i++) made.push((await client.createHTTPMonitor({ monitor: { ...site, name: `m${i}` } })).monitor!);
    const error = await rejection(client.createTCPMonitor({ monitor: { name: "one more", uri: "example.com:443", periodicity } }));
    expect({ code: Code[error.code], message: error.rawMessage }).toEqual({
      code: Code[Code.ResourceExhausted],
      message: `the workspace has ${QUOTA} monitors, the most it may have; delete one first`,
    });
    await client.deleteMonitor({ id: made[0]!.id });
    await client.createDNSMonitor({ monitor: { name: "zone", uri: "example.com", periodicity } });
    expect((await client.listMonitors({})).totalSize).toBe(QUOTA);
  });

  it("hold when creates arrive together, and count per workspace", async () => {
    const [first, second] = [await api.workspace(), await api.workspace()];
    const together = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => api.client(first.write.key).createHTTPMonitor({ monitor: { ...site, name: `m${i}` } })),
    );
    const codes = together.map((r) => (r.status === "fulfilled" ? "ok" : Code[ConnectError.from(r.reason).code]));
    expect(codes.filter((c) => c === "ok")).toHaveLength(QUOTA);
    expect(codes.filter((c) => c !== "ok")).toEqual(Array(10 - QUOTA).fill(Code[Code.ResourceExhausted]));
    await api.client(second.write.key).createHTTPMonitor({ monitor: site });
  });
});
