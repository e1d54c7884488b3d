import { Periodicity } from "@vigil/proto";
import { eventually } from "../../../test/eventually";
import { consoleTestEnvironment, expectAccessible, heading, screenshotBoth, shows } from "./support/console";

/**
 * The console's incidents of a status page in headless Chromium at a phone's width, against a real
 * control plane: an editor writes an incident with affected components (its Markdown previewed as the
 * public page renders it), posts updates, resolves it and writes a postmortem, and the public page
 * and the API show what was done; a viewer reads them without a control to change them.
 */
const env = consoleTestEnvironment("https://vigil.example.com");
const pages = (key: string) => env.api.statusPageClient(key);

describe("the console's status page incidents", () => {
  it("lets an editor write, update, resolve and explain an incident, with a Markdown preview", async () => {
    const { ws, page } = await env.signedInAt("editor", "Status pages");
    const client = pages(ws.write.key);
    const slug = `incidents-${ws.slug}`;
    const pageId = (await client.createStatusPage({ statusPage: { title: "Acme", slug } })).statusPage!.id;
    const web = (await client.createStatusPageComponent({ component: { pageId, type: "static", name: "Website" } })).component!.id;
    await client.createStatusPageComponent({ component: { pageId, type: "static", name: "Docs", order: 1 } });

    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}`);
    await shows(heading(page), "Acme");
    await page.getByRole("link", { name: "Incidents on this page", exact: true }).click();
    await shows(heading(page), "Incidents of Acme");
    await shows(page.getByText("No incident written yet."));

    // The domain's rules answer before the API is asked.
    await page.getByRole("button", { name: "Publish incident" }).click();
    await shows(page.getByText("Incident title: must not be empty"));

    await page.getByLabel("Incident title").fill("Website slow");
    await page.getByLabel("Status", { exact: true }).selectOption("identified");
    await page.getByLabel("Message", { exact: true }).fill("A **slow** database. <script>window.pwned=1</script> [more](javascript:alert(1))");
    const preview = page.getByRole("region", { name: "Message preview" });
    await shows(preview.locator("strong"), "slow");
    expect(await preview.locator("script").count()).toBe(0);
    expect(await preview.locator("a").count()).toBe(0);
    expect(await preview.innerText()).toContain("<script>window.pwned=1</script>");
    await page.getByLabel("Website").selectOption("partial_outage");
    await expectAccessible(page, "incident form");
    await page.getByRole("button", { name: "Publish incident" }).click();

    const incident = page.getByTestId("incident").filter({ hasText: "Website slow" });
    await shows(incident);
    const [written] = (await client.listStatusPageIncidents({ pageId })).incidents;
    expect(written).toMatchObject({ title: "Website slow", status: "identified", components: [{ componentId: web, impact: "partial_outage" }] });
    expect(await page.evaluate("window.pwned")).toBeUndefined();

    await incident.getByRole("button", { name: "Open Website slow" }).click();
    await incident.getByLabel("New status").selectOption("resolved");
    await incident.getByLabel("Update message", { exact: true }).fill("Fixed: the index is back.");
    await incident.getByRole("button", { name: "Post update" }).click();
    await shows(incident.getByText("Fixed: the index is back."));
    await incident.getByRole("button", { name: "Edit Website slow" }).click();
    await incident.getByLabel("Postmortem", { exact: true }).fill("## What happened\n\nAn index was dropped.");
    await shows(incident.getByRole("region", { name: "Postmortem preview" }).getByRole("heading", { name: "What happened" }));
    await incident.getByRole("button", { name: "Save incident" }).click();
    await eventually(async () => expect((await client.getStatusPageIncident({ id: written!.id })).incident).toMatchObject({ status: "resolved", postmortem: "## What happened\n\nAn index was dropped." }));
    await shows(incident.getByRole("heading", { name: "Postmortem" }));
    await expectAccessible(page, "incidents");
    await screenshotBoth(page, "status-page-incidents");

    // The public incident page tells what was written.
    const html = await (await env.api.fetch(`/status/${slug}/incidents/${written!.id}`)).text();
    expect(html).toContain("<h2>What happened</h2>");
    expect(html).toContain("Fixed: the index is back.");

    page.once("dialog", (dialog) => void dialog.accept());
    await incident.getByRole("button", { name: "Delete Website slow" }).click();
    await shows(page.getByText("No incident written yet."));
    expect((await client.listStatusPageIncidents({ pageId })).incidents).toEqual([]);
  });

  it("tells of an automatic incident in its place, or keeps it internal", async () => {
    const { ws, page } = await env.signedInAt("editor", "Status pages");
    const client = pages(ws.write.key);
    const slug = `automatic-${ws.slug}`;
    const { monitor } = await env.api.client(ws.write.key).createTCPMonitor({ monitor: { name: "Gateway", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_1M } });
    const pageId = (await client.createStatusPage({ statusPage: { title: "Gate", slug } })).statusPage!.id;
    await client.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId: monitor!.id } });
    const workspaceId = (await env.api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: ws.slug } })).id;
    const automatic = await env.api.db.prisma.incident.create({ data: { workspaceId, monitorId: monitor!.id, severity: "error", startedAt: new Date(), regions: [] } });
    expect(await (await env.api.fetch(`/status/${slug}`)).text()).toContain("Outage: Gateway");

    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}/incidents`);
    await shows(heading(page), "Incidents of Gate");
    await page.getByLabel("Incident title").fill("Gateway maintenance overran");
    await page.getByLabel("Message", { exact: true }).fill("We are on it.");
    await page.getByLabel("Tells of").selectOption(automatic.id);
    await page.getByLabel("Keep both off the page (internal)").check();
    await expectAccessible(page, "incident form with an automatic incident");
    await page.getByRole("button", { name: "Publish incident" }).click();
    await shows(page.getByTestId("incident").filter({ hasText: "Gateway maintenance overran" }));
    expect((await client.listStatusPageIncidents({ pageId })).incidents[0]).toMatchObject({ monitorIncidentId: automatic.id, internal: true });
    const html = await (await env.api.fetch(`/status/${slug}`)).text();
    expect(html).not.toContain("Outage: Gateway");
    expect(html).not.toContain("Gateway maintenance overran");
  });

  it("shows a viewer the incidents without a control to change them", async () => {
    const { ws, page } = await env.signedInAt("viewer", "Status pages");
    const client = pages(ws.write.key);
    const pageId = (await client.createStatusPage({ statusPage: { title: "Read only", slug: `viewer-incidents-${ws.slug}` } })).statusPage!.id;
    await client.createStatusPageIncident({ incident: { pageId, title: "Mail delays", status: "monitoring", message: "Queues are *draining*." } });
    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}/incidents`);
    const incident = page.getByTestId("incident").filter({ hasText: "Mail delays" });
    await incident.getByRole("button", { name: "Open Mail delays" }).click();
    await shows(incident.locator("em"), "draining");
    for (const control of ["Publish incident", "Post update", "Edit Mail delays", "Delete Mail delays"]) {
      expect({ control, count: await page.getByRole("button", { name: control, exact: true }).count() }).toEqual({ control, count: 0 });
    }
    await expectAccessible(page, "incidents for a viewer");
  });
});
