import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Role } from "@vigil/domain";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { MemberService } from "@vigil/proto/account";
import { startAgent, type AgentProcess } from "../../agent/test/support/processes";
import { eventually } from "../../../test/eventually";
import { redisServerUrl } from "../../../test/redis";
import { checkResult, publishResults } from "./support/results";
import { consoleTestEnvironment, expectAccessible, heading, shows, signInWith, screenshotBoth } from "./support/console";
import { sessionClient, signedInPerson } from "./support/people";

/**
 * The monitor page (apps/console/src/pages/monitors) in headless Chromium at a phone's width: a monitor
 * of a loopback target checked by real agents in two regions, its chart, phases and log, and what its
 * controls do as the API then answers.
 */
const env = consoleTestEnvironment("https://vigil.example.com");
const REGIONS = ["hostA-ams", "hostB-fra"] as const;
const agents: AgentProcess[] = [];
/** The trace ids of the traceparent headers the target received, by path. */
const traceIdsSeen = new Map<string, string[]>();
const target = http.createServer((req, res) => {
  const traceId = /^00-([0-9a-f]{32})-/.exec(String(req.headers.traceparent))?.[1];
  if (traceId) traceIdsSeen.set(req.url ?? "", [...(traceIdsSeen.get(req.url ?? "") ?? []), traceId]);
  if (req.url === "/fail") res.statusCode = 503;
  res.end(req.url === "/fail" ? "down" : "ok");
});
let targetUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  for (const region of REGIONS) agents.push(await startAgent({ REGION: region, REDIS_URL: redisServerUrl(), REDIS_PREFIX: env.api.redisPrefix }));
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  target.close();
});

/**
 * A workspace with an HTTP monitor of the target's `path` (`/fail` answers 503), `earlier` older results
 * reported as agents do, then checked once now in both regions; and a person of `role` on its page.
 */
async function monitorPageAs(role: Role, { path = "/health", earlier = 0 } = {}) {
  const { slug, write } = await env.api.workspace();
  const client = env.api.client(write.key);
  const { monitor } = await client.createHTTPMonitor({
    monitor: { name: "Shop API", url: `${targetUrl}${path}`, periodicity: Periodicity.PERIODICITY_1H, active: true, retry: 0n, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
  });
  const id = monitor!.id;
  const count = async () => (await client.listCheckResults({ id, limit: 100 })).results.length;
  if (earlier) {
    const hourAgo = Date.now() - 3_600_000;
    await publishResults(env.api.redisPrefix, Array.from({ length: earlier }, (_, i) => checkResult(id, "hostA-ams", new Date(hourAgo + i * 60_000).toISOString())));
    await eventually(async () => expect(await count()).toBe(earlier));
  }
  await client.triggerMonitor({ id });
  await eventually(async () => expect(await count()).toBe(earlier + 2));
  const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, role);
  const page = await env.open(`${env.api.baseUrl}/app/sign-in`);
  await signInWith(page, person.email, person.password);
  await shows(heading(page), "Monitors");
  await page.goto(`${env.api.baseUrl}/app/monitors/${id}`);
  await shows(heading(page), "Shop API");
  return { slug, id, client, incidents: env.api.incidents(write.key), person, page };
}

const latencyTable = (page: Awaited<ReturnType<typeof monitorPageAs>>["page"]) => page.getByRole("region", { name: "Latency per region over the range" });

describe("the console's monitor page", () => {
  it("draws the latency chart with its text alternative, switches range and regions by keyboard, checks now live, pauses, resumes and deletes", async () => {
    const { id, client, page } = await monitorPageAs("editor");

    await shows(page.locator("[data-testid=latency-chart] canvas"));
    for (const region of REGIONS) await shows(latencyTable(page).getByRole("rowheader", { name: region }));
    await shows(page.getByRole("region", { name: "Recent checks" }).getByRole("cell", { name: "hostB-fra" }));
    await shows(page.getByRole("region", { name: "Status and uptime per region" }).getByRole("cell", { name: "100.00 %" }));
    // The phases' bars have their numbers behind a disclosure.
    await page.getByText("Phases as a table").click();
    await shows(page.getByRole("region", { name: "Phases of recent checks" }).getByRole("cell", { name: "hostA-ams" }));
    await expectAccessible(page, "monitor page");
    await screenshotBoth(page, "monitor-page");

    // The range by keyboard: the radio group moves with the arrow keys.
    await page.getByRole("radio", { name: "24 h" }).focus();
    await page.keyboard.press("ArrowRight");
    await eventually(async () => {
      expect(await page.getByRole("radio", { name: "7 d" }).isChecked()).toBe(true);
      expect(new URL(page.url()).searchParams.get("range")).toBe("7d");
    });
    await shows(page.locator("[data-testid=latency-chart] canvas"));
    await shows(latencyTable(page).getByRole("rowheader", { name: "hostA-ams" }));

    // A region off and on again by keyboard: its row leaves the text alternative and comes back.
    await page.getByRole("checkbox", { name: "hostB-fra" }).focus();
    await page.keyboard.press("Space");
    await eventually(async () => expect(await latencyTable(page).getByRole("rowheader").allTextContents()).toEqual(["hostA-ams"]));
    await page.keyboard.press("Space");
    await eventually(async () => expect(await latencyTable(page).getByRole("rowheader").allTextContents()).toEqual([...REGIONS]));

    // Check now: the two new results appear in the log without a reload.
    const rows = page.getByTestId("check-row");
    expect(await rows.count()).toBe(2);
    await page.getByRole("button", { name: "Check now" }).click();
    await eventually(async () => expect(await rows.count()).toBe(4), 20_000);

    await page.getByRole("button", { name: "Pause" }).click();
    await eventually(async () => expect((await client.getMonitor({ id })).monitor?.config.value?.active).toBe(false));
    await shows(page.getByText("(paused)"));
    await page.getByRole("button", { name: "Resume" }).click();
    await eventually(async () => expect((await client.getMonitor({ id })).monitor?.config.value?.active).toBe(true));
    await shows(page.getByRole("button", { name: "Pause" }));
    expect(await page.getByRole("link", { name: "Edit", exact: true }).getAttribute("href")).toBe(`/app/monitors/${id}/edit`);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(`${env.api.baseUrl}/app/monitors`);
    await expect(client.getMonitor({ id })).rejects.toMatchObject({ code: Code.NotFound });
  }, 90_000);

  it("shows a viewer no write control, and the API refuses the viewer's session; the log shows each check's trace id as the target got it", async () => {
    const { slug, id, client, person, page } = await monitorPageAs("viewer", { path: "/traced" });
    await shows(page.getByTestId("check-row"));
    const seen = traceIdsSeen.get("/traced") ?? [];
    expect(seen).toHaveLength(2);
    const log = page.getByRole("region", { name: "Recent checks" });
    for (const traceId of seen) await shows(log.getByRole("cell", { name: traceId }));
    for (const name of ["Check now", "Pause", "Resume", "Delete"]) expect(await page.getByRole("button", { name }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Edit", exact: true }).count()).toBe(0);
    await expectAccessible(page, "monitor page of a viewer");

    const asViewer = sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug });
    for (const call of [() => asViewer.triggerMonitor({ id }), () => asViewer.updateHTTPMonitor({ id, monitor: { active: false } }), () => asViewer.deleteMonitor({ id })]) {
      const refused = await call().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ConnectError);
      expect((refused as ConnectError).code).toBe(Code.PermissionDenied);
    }
    expect((await client.getMonitor({ id })).monitor?.config.value?.active).toBe(true);
  }, 60_000);

  it("shows the certificate each region's newest check saw, with its expiry, days left and issuer, and none where no check saw one", async () => {
    const { id, page } = await monitorPageAs("viewer");
    const regions = page.getByRole("region", { name: "Regions" });
    // The target is plain HTTP: the agents' checks saw no certificate.
    await shows(regions.getByTestId("region-certificate").first(), "—");
    const chainNotAfter = new Date(Date.now() + 20 * 86_400_000 + 3_600_000).toISOString();
    const certificate = { notAfter: chainNotAfter, chainNotAfter, issuer: "CN=R11, O=Let's Encrypt, C=US", subjectAltNames: ["DNS:shop.example.com"] };
    await publishResults(env.api.redisPrefix, [checkResult(id, "hostA-ams", new Date().toISOString(), "success", { certificate })]);
    await eventually(async () => expect((await env.api.db.prisma.monitorRegionStatus.findFirst({ where: { monitorId: id, region: "hostA-ams" } }))?.certificate).not.toBeNull());
    await page.reload();
    const text = `${chainNotAfter.slice(0, 10)}, 20 days left (CN=R11, O=Let's Encrypt, C=US)`;
    await shows(regions.getByRole("row", { name: /hostA-ams/ }).getByTestId("region-certificate"), text);
    expect(await regions.getByTestId("region-certificate").allTextContents()).toEqual([text, "—"]);
    await expectAccessible(page, "monitor page with a certificate");
  }, 60_000);

  it("lists a failing monitor's incident with its link, the failure in the log, and older checks page by page", async () => {
    const { id, incidents, page } = await monitorPageAs("viewer", { path: "/fail", earlier: 25 });
    // The failed checks opened it in the same transaction that stored them, before the page was opened.
    const [incident] = (await incidents.listIncidents({ monitorId: id })).incidents;
    const link = page.getByRole("region", { name: "Incidents of this monitor" }).getByRole("link");
    await shows(link);
    expect(await link.getAttribute("href")).toBe(`/app/incidents/${incident!.id}`);
    const log = page.getByRole("region", { name: "Recent checks" });
    await shows(log.getByRole("cell", { name: "http_status" }));
    await shows(log.getByRole("cell", { name: "503", exact: true }));
    expect(await page.getByTestId("check-row").count()).toBe(20);
    await page.getByRole("button", { name: "Older" }).click();
    await eventually(async () => expect(await page.getByTestId("check-row").count()).toBe(27));
    expect(await page.getByRole("button", { name: "Older" }).count()).toBe(0);
  }, 60_000);

  it("shows the API's refusal where the control is when the role changed since the page was opened", async () => {
    const { slug, id, client, person, page } = await monitorPageAs("editor");
    // An owner makes the editor a viewer through the API while the editor's page still shows the controls.
    const owner = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "owner");
    await sessionClient(MemberService, env.api.baseUrl, owner.token, { workspace: slug }).updateMemberRole({ id: person.userId, role: "viewer" });
    await page.getByRole("button", { name: "Pause" }).click();
    await shows(page.getByRole("alert"), "needs an editor's role or above (you are viewer");
    // The page learns the new role from the refusal's refresh and hides the controls; the refusal stays.
    await eventually(async () => expect(await page.getByRole("button", { name: "Check now" }).count()).toBe(0));
    await shows(page.getByRole("alert"), "needs an editor's role or above (you are viewer");
    expect((await client.getMonitor({ id })).monitor?.config.value?.active).toBe(true);
  }, 60_000);
});
