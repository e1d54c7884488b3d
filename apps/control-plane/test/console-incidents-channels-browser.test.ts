import { Code } from "@connectrpc/connect";
import type { Role } from "@vigil/domain";
import { Periodicity, Region } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import type { Page } from "playwright-core";
import { startProviderServer, type Answer, type ProviderServer, type Received } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { channel } from "./support/channels";
import { consoleTestEnvironment, expectAccessible, heading, screenshotBoth, shows } from "./support/console";
import { sessionClient } from "./support/people";
import { checkResult, publishResults } from "./support/results";

/**
 * The console's Incidents and Channels (apps/console/src/pages/incidents and
 * channels) in headless Chromium at a phone's width, against a real control
 * plane whose channels send to local provider servers (HTTP, and the
 * environment's SMTP mailbox): what is made through the forms is what the
 * API then answers and what the providers receive.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

let provider: ProviderServer;
/** How the provider answers, per path (200 otherwise). */
const answers = new Map<string, (request: Received) => Answer>();
const sentTo = (path: string) => provider.received.filter((r) => new URL(r.url, "http://x").pathname === path);

beforeAll(async () => {
  provider = await startProviderServer((request) => (answers.get(new URL(request.url, "http://x").pathname) ?? (() => ({ status: 200 })))(request));
});
afterAll(() => provider.close());

/** A new workspace with a monitor, and a person of `role` in it signed in to the console and gone to `link` of the header. */
async function signedInAt(role: Role, link: string) {
  const ws = await env.api.workspace();
  const { slug, write } = ws;
  const { monitor } = await env.api.client(write.key).createHTTPMonitor({
    monitor: { name: `checkout-${slug}`, url: `https://checkout-${slug}.example.com/`, periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS] },
  });
  const { person, page } = await env.signedInAt(role, link, ws);
  const channels = sessionClient(NotificationService, env.api.baseUrl, person.token, { workspace: slug });
  return { ws, slug, monitor: monitor!, page, channels };
}

/** Accepts the next confirmation the page asks for. */
const confirming = (page: Page) => page.once("dialog", (dialog) => void dialog.accept());

/** Fills the new-channel form of `type` (its fields by label) for the monitor, and sends it. */
async function addChannel(page: Page, type: string, name: string, fields: Record<string, string>, monitorName: string) {
  await page.goto(`${env.api.baseUrl}/app/channels/new`);
  await shows(heading(page), "Add a channel");
  await page.getByLabel("Type").selectOption({ label: type });
  await page.getByLabel("Name (optional)").fill(name);
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel(monitorName).check();
  await page.getByRole("button", { name: `Add the ${type} channel` }).click();
}

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();

describe("the console's Incidents and Channels", () => {
  it("creates channels of several types through their forms, keeps secrets redacted, with the browser's and the API's field errors, and sends tests showing the answer", async () => {
    const { slug, monitor, page, channels } = await signedInAt("editor", "Channels");
    await shows(page.getByText("No channel yet."));
    await expectAccessible(page, "channels, none");

    await page.getByRole("link", { name: "Add a channel" }).click();
    await shows(heading(page), "Add a channel");
    expect(await page.getByLabel("Type").locator("option").count()).toBe(12);
    await expectAccessible(page, "new channel");
    await screenshotBoth(page, "channels-new");

    // The domain's rule in the browser, before anything is sent.
    await page.getByLabel("Endpoint URL").fill("hooks.example.com/vigil");
    await page.getByRole("button", { name: "Add the Webhook channel" }).click();
    await shows(page.getByText("Endpoint URL: must be an absolute http:// or https:// URL"));
    expect(await page.getByLabel("Endpoint URL").getAttribute("aria-invalid")).toBe("true");
    // The API's rule (the address policy), beside the same field.
    await page.getByLabel("Endpoint URL").fill("http://224.0.0.1/vigil");
    await page.getByRole("button", { name: "Add the Webhook channel" }).click();
    await shows(page.getByText("Endpoint URL: refused: 224.0.0.1 is"));
    await expectAccessible(page, "new channel with field errors");
    expect((await channels.listNotifications({})).totalSize).toBe(0);

    // A webhook with a header: its signing secret shown once.
    await page.getByLabel("Endpoint URL").fill(`${provider.url}/hook-${slug}`);
    await page.getByRole("button", { name: "Add a header" }).click();
    await page.getByLabel("Header 1 name").fill("x-team");
    await page.getByLabel("Header 1 value").fill("ops");
    await page.getByLabel("Name (optional)").fill("Team hook");
    await page.getByLabel(monitor.name!).check();
    await page.getByRole("button", { name: "Add the Webhook channel" }).click();
    await shows(page.getByTestId("signing-secret"), "whsec_");
    await page.getByRole("link", { name: "Go to the channel" }).click();
    await shows(heading(page), "Channel Team hook");
    const [hook] = (await channels.listNotifications({})).notifications;
    expect(hook).toMatchObject({ name: "Team hook", providerType: "webhook", monitorIds: [monitor.id] });
    expect(hook!.provider.value).toMatchObject({ endpoint: `${provider.url}/hook-${slug}`, headers: [{ key: "x-team", value: "ops" }] });

    await page.getByRole("button", { name: "Send a test message" }).click();
    await shows(page.getByTestId("test-answer"), "Delivered: the provider accepted the test message.");
    expect(sentTo(`/hook-${slug}`)).toHaveLength(1);
    expect(sentTo(`/hook-${slug}`)[0]!.headers["x-team"]).toBe("ops");
    await shows(page.getByRole("cell", { name: "HTTP 200" }));
    await expectAccessible(page, "webhook channel");
    await screenshotBoth(page, "channel-webhook");

    // Email, to the environment's mailbox.
    const address = `oncall-${slug}@console.test`;
    await addChannel(page, "Email", "On call", { "Email address": address }, monitor.name!);
    await shows(heading(page), "Channel On call");
    await page.getByRole("button", { name: "Send a test message" }).click();
    await shows(page.getByTestId("test-answer"), "Delivered");
    expect((await eventually(() => env.mailbox.mailTo(address))).raw).toContain(monitor.name!);

    // Slack: its webhook URL is a secret, shown redacted and kept when the channel is saved unchanged.
    answers.set(`/services/${slug}/refused`, () => ({ status: 404, body: "channel_not_found" }));
    await addChannel(page, "Slack", "Ops room", { "Webhook URL": `${provider.url}/services/${slug}/refused` }, monitor.name!);
    await shows(heading(page), "Channel Ops room");
    expect(await page.getByLabel("Webhook URL").inputValue()).toBe(`${provider.url}/…`);
    await page.getByLabel("Name (optional)").fill("Ops room, renamed");
    await page.getByRole("button", { name: "Save the channel" }).click();
    await shows(heading(page), "Channel Ops room, renamed");
    await page.getByRole("button", { name: "Send a test message" }).click();
    await shows(page.getByTestId("test-answer"), "Not delivered: ");
    expect(await page.getByTestId("test-answer").textContent()).toContain("404");
    expect(sentTo(`/services/${slug}/refused`)).toHaveLength(1);
    await shows(page.getByRole("cell", { name: /HTTP 404/ }));
    await expectAccessible(page, "slack channel");

    // ntfy: a change of its topic sends the token back as answered (redacted), and the API keeps the stored one.
    const token = `tk_${slug}_abcdefghijklmnopqrstuvwxyz`;
    await addChannel(page, "ntfy", "Phones", { Topic: "vigil-alerts", "Server URL (optional)": `${provider.url}/ntfy-${slug}`, "Access token (optional)": token }, monitor.name!);
    await shows(heading(page), "Channel Phones");
    expect(await page.getByLabel("Access token (optional)").inputValue()).toBe(`…${token.slice(-4)}`);
    await page.getByLabel("Topic").fill("vigil-pages");
    await page.getByRole("button", { name: "Save the channel" }).click();
    await shows(page.getByText("Saved."));
    await page.getByRole("button", { name: "Send a test message" }).click();
    await shows(page.getByTestId("test-answer"), "Delivered");
    expect(sentTo(`/ntfy-${slug}/`).map((r) => [r.headers.authorization, (r.json as { topic: string }).topic])).toEqual([[`Bearer ${token}`, "vigil-pages"]]);

    await page.getByRole("navigation").getByRole("link", { name: "Channels" }).click();
    await shows(page.getByRole("cell", { name: "Ops room, renamed" }));
    expect(await page.getByRole("cell", { name: monitor.name! }).count()).toBe(4);
    await expectAccessible(page, "channels");
    await screenshotBoth(page, "channels");

    // Deleted after confirmation.
    await page.getByRole("link", { name: "On call" }).click();
    await shows(heading(page), "Channel On call");
    confirming(page);
    await page.getByRole("button", { name: "Delete the channel" }).click();
    await shows(heading(page), "Channels");
    await page.getByRole("link", { name: "On call" }).waitFor({ state: "detached" });
    expect((await channels.listNotifications({})).notifications.map((c) => c.name).sort()).toEqual(["Ops room, renamed", "Phones", "Team hook"]);
  });

  it("shows an incident's timeline and its deliveries with attempts, and a viewer sees no edit control and is refused by the API", async () => {
    const { ws, slug, monitor, page, channels } = await signedInAt("editor", "Incidents");
    await shows(page.getByText("No incident yet."));
    // The channel answers 429 once: the delivery is retried after its Retry-After.
    let calls = 0;
    answers.set(`/incident-${slug}`, () => (++calls === 1 ? { status: 429, headers: { "retry-after": "1" }, body: "slow down" } : { status: 200 }));
    await addChannel(page, "Webhook", "Incident hook", { "Endpoint URL": `${provider.url}/incident-${slug}` }, monitor.name!);
    await shows(page.getByTestId("signing-secret"));

    await publishResults(env.api.redisPrefix, [checkResult(monitor.id, "hostA-ams", secondsAgo(20), "success")]);
    await eventually(async () => expect(await env.api.db.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).toMatchObject({ status: "active" }));
    await publishResults(env.api.redisPrefix, [checkResult(monitor.id, "hostA-ams", secondsAgo(15), "error")]);
    await eventually(() => expect(sentTo(`/incident-${slug}`)).toHaveLength(2));
    await publishResults(env.api.redisPrefix, [checkResult(monitor.id, "hostA-ams", secondsAgo(5), "success")]);
    await eventually(() => expect(sentTo(`/incident-${slug}`)).toHaveLength(3));

    await page.getByRole("navigation").getByRole("link", { name: "Incidents" }).click();
    await page.getByRole("link", { name: monitor.name! }).click();
    await shows(heading(page), `Incident of ${monitor.name}`);
    const timeline = page.getByRole("region", { name: "Timeline of the incident" });
    await shows(timeline.getByRole("row").nth(1), "Failed");
    expect(await timeline.getByRole("row").allInnerTexts()).toEqual([
      expect.stringContaining("Time"),
      expect.stringMatching(/Failed\s+hostA-ams\s+Down\s+HTTP 503 · http_status · HTTP 503\s+80 ms/),
      expect.stringMatching(/Recovered\s+hostA-ams\s+Up\s+HTTP 200\s+80 ms/),
    ]);
    const deliveries = page.getByRole("region", { name: "Deliveries of the incident" });
    await shows(deliveries.getByRole("row").nth(2));
    expect(await deliveries.getByRole("row").allInnerTexts()).toEqual([
      expect.stringContaining("Attempts"),
      expect.stringMatching(/Incident hook\s+Recovered\s+.+\s+1\s+delivered\s+HTTP 200/),
      expect.stringMatching(/Incident hook\s+Failed\s+.+\s+2 \(1 retry\)\s+delivered\s+HTTP 200/),
    ]);
    await expectAccessible(page, "incident");
    await screenshotBoth(page, "incident");

    await page.getByRole("navigation").getByRole("link", { name: "Incidents" }).click();
    await shows(page.getByRole("cell", { name: "hostA-ams" }));
    await page.getByLabel("Open only").check();
    await shows(page.getByText("No incident is open."));
    await page.getByLabel("Open only").uncheck();
    await shows(page.getByRole("link", { name: monitor.name! }));
    await expectAccessible(page, "incidents");
    await screenshotBoth(page, "incidents");

    // A viewer of the same workspace: the same pages, no control; the API refuses what the controls would do.
    const { person: viewer, page: viewerPage } = await env.signedInAt("viewer", "Channels", ws);
    await shows(viewerPage.getByRole("link", { name: "Incident hook" }));
    expect(await viewerPage.getByRole("link", { name: "Add a channel" }).count()).toBe(0);
    await viewerPage.getByRole("link", { name: "Incident hook" }).click();
    await shows(heading(viewerPage), "Channel Incident hook");
    await shows(viewerPage.getByRole("cell", { name: "HTTP 200" }));
    expect(await viewerPage.getByRole("main").getByRole("button").count()).toBe(0);
    expect(await viewerPage.getByRole("main").getByRole("textbox").count()).toBe(0);
    await expectAccessible(viewerPage, "channel, viewer");
    const [hook] = (await channels.listNotifications({})).notifications;
    const asViewer = sessionClient(NotificationService, env.api.baseUrl, viewer.token, { workspace: slug });
    for (const call of [() => asViewer.sendTestNotification({ id: hook!.id }), () => asViewer.deleteNotification({ id: hook!.id })]) {
      await expect(call()).rejects.toMatchObject({ code: Code.PermissionDenied });
    }
    await expect(asViewer.createNotification({ notification: channel("email", { email: `viewer-${slug}@console.test` }) })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await viewerPage.goto(`${env.api.baseUrl}/app/channels/new`);
    await shows(heading(viewerPage), "Add a channel");
    await shows(viewerPage.getByText("Your role (viewer) may not add channels."));
    expect(await viewerPage.getByRole("main").getByRole("button").count()).toBe(0);
  });

  it("an editor sets a channel's reminders and acknowledges an open incident with its button; a viewer sees who did, without the button", async () => {
    const { ws, slug, monitor, page, channels } = await signedInAt("editor", "Incidents");
    await addChannel(page, "Webhook", "Ack hook", { "Endpoint URL": `${provider.url}/ack-${slug}`, "Remind every (minutes)": "30" }, monitor.name!);
    await shows(page.getByTestId("signing-secret"));
    const [hook] = (await channels.listNotifications({})).notifications;
    expect(hook).toMatchObject({ name: "Ack hook", reminderMinutes: 30 });

    // The form checks the rule before sending, as the API would.
    await page.goto(`${env.api.baseUrl}/app/channels/${hook!.id}`);
    await shows(heading(page), "Channel Ack hook");
    expect(await page.getByLabel("Remind every (minutes)").inputValue()).toBe("30");
    await page.getByLabel("Remind every (minutes)").fill("2000");
    await page.getByRole("button", { name: "Save the channel" }).click();
    await shows(page.getByText("must be an integer from 0 to 1440"));
    await page.getByLabel("Remind every (minutes)").fill("15");
    await page.getByRole("button", { name: "Save the channel" }).click();
    await shows(page.getByText("Saved."));
    expect((await channels.getNotification({ id: hook!.id })).notification!.reminderMinutes).toBe(15);

    await publishResults(env.api.redisPrefix, [checkResult(monitor.id, "hostA-ams", secondsAgo(20), "success")]);
    await eventually(async () => expect(await env.api.db.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).toMatchObject({ status: "active" }));
    await publishResults(env.api.redisPrefix, [checkResult(monitor.id, "hostA-ams", secondsAgo(15), "error")]);
    await eventually(() => expect(sentTo(`/ack-${slug}`)).toHaveLength(1));

    await page.getByRole("navigation").getByRole("link", { name: "Incidents" }).click();
    await page.getByRole("link", { name: monitor.name! }).click();
    await shows(heading(page), `Incident of ${monitor.name}`);
    await shows(page.getByText("not yet"));
    await page.getByRole("button", { name: "Acknowledge" }).click();
    const timeline = page.getByRole("region", { name: "Timeline of the incident" });
    await shows(timeline.getByRole("row").nth(2), "Acknowledged");
    expect(await timeline.getByRole("row").nth(2).innerText()).toMatch(/Acknowledged\s+by user:editor-\d+@people\.test/);
    expect(await page.getByRole("button", { name: "Acknowledge" }).count()).toBe(0);
    await eventually(() => expect(sentTo(`/ack-${slug}`).map((r) => (r.json as { type: string }).type)).toEqual(["monitor.failed", "incident.acknowledged"]));
    await expectAccessible(page, "incident, acknowledged");

    const { page: viewerPage } = await env.signedInAt("viewer", "Incidents", ws);
    await viewerPage.getByRole("link", { name: monitor.name! }).click();
    await shows(heading(viewerPage), `Incident of ${monitor.name}`);
    await shows(viewerPage.getByText(/ by user:editor-\d+@people\.test$/));
    expect(await viewerPage.getByRole("main").getByRole("button").count()).toBe(0);
  });
});
