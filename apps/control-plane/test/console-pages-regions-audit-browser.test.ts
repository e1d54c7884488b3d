import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import { AuditLogService } from "@vigil/proto/account";
import { StatusPageService } from "@vigil/proto/status-page";
import type { Page } from "playwright-core";
import { startAgent } from "../../agent/test/support/processes";
import { redisServerUrl } from "../../../test/redis";
import { eventually } from "../../../test/eventually";
import { consoleTestEnvironment, expectAccessible, heading, screenshotBoth, shows, type ConsolePage } from "./support/console";
import { sessionClient } from "./support/people";

/**
 * The console's status page editor, regions page and audit log in headless Chromium at a phone's
 * width, against a real control plane and a real agent: what a person does there is what the
 * public page and the RPCs then show, a viewer gets no edit control (and the API refuses it), and
 * every page passes axe-core under the Content-Security-Policy.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

let target: http.Server;
let targetUrl = "";
beforeAll(async () => {
  target = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise((resolve) => target.close(resolve)));

const { signedInAt } = env;

const pages = (key: string) => env.api.statusPageClient(key);

/** The components' names in the order the API lists them (the public page's order for ungrouped ones). */
async function componentOrder(key: string, pageId: string, names: Map<string, string>) {
  const { components } = await pages(key).listStatusPageComponents({ pageId });
  return components.map((c) => c.name || names.get(c.monitorId ?? "")!);
}

const refusalCode = async (call: Promise<unknown>) => call.then(() => "ok", (error: unknown) => Code[ConnectError.from(error).code]);

/** Drags the handle `from` with the mouse to where `to` is, in small steps as a hand would. */
async function drag(page: Page, from: string, to: string) {
  const source = (await page.getByRole("button", { name: from, exact: true }).boundingBox())!;
  const dest = (await page.getByRole("button", { name: to, exact: true }).boundingBox())!;
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  for (let step = 1; step <= 10; step++) {
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2 + ((dest.y - source.y) * step) / 10 - 2);
  }
  await page.mouse.up();
}

describe("the console's status pages, regions and audit log", () => {
  it("lets an editor create a page and its components, order them by keyboard and by mouse, and the public page shows that order", async () => {
    const { ws, page } = await signedInAt("editor", "Status pages");
    const names = new Map<string, string>();
    for (const name of ["API", "Web"]) {
      const { monitor } = await env.api.client(ws.write.key).createHTTPMonitor({ monitor: { name, url: targetUrl, periodicity: Periodicity.PERIODICITY_1M } });
      names.set(monitor!.id, name);
    }
    await pages(ws.write.key).createStatusPage({ statusPage: { title: "Taken", slug: `taken-${ws.slug}` } });
    await page.reload();
    await shows(page.getByRole("link", { name: "Taken" }));
    await expectAccessible(page, "status pages");
    await screenshotBoth(page, "status-pages");

    // The domain's rule in the browser, then the API's own (a slug in use) beside the field.
    await page.getByLabel("Title").fill("Acme");
    await page.getByLabel("Slug").fill("Not A Slug");
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(page.getByText("Slug: must be lowercase letters, digits and single hyphens, neither first nor last"));
    await page.getByLabel("Slug").fill(`taken-${ws.slug}`);
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(page.getByText(`Slug: taken-${ws.slug} is already taken by another page`));
    const slug = `acme-${ws.slug}`;
    await page.getByLabel("Slug").fill(slug);
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(heading(page), "Acme");
    const pageId = new URL(page.url()).pathname.split("/").pop()!;

    // Every field of the page; a domain the deployment keeps for itself is the API's refusal, beside its field.
    const fields = page.getByRole("form", { name: "Page" });
    await fields.getByLabel("Description").fill("Everything Acme runs.");
    await fields.getByLabel("Custom domain").fill("vigil.example.com");
    await fields.getByRole("button", { name: "Save page" }).click();
    await shows(fields.getByText("Custom domain: is reserved by this Vigil deployment"));
    await fields.getByLabel("Custom domain").fill("");
    await fields.getByLabel("Access").selectOption("password");
    await fields.getByRole("button", { name: "Save page" }).click();
    await shows(fields.getByText("Password: is required when accessType is password"));
    await fields.getByLabel("Access").selectOption("public");
    // Languages are offered by their own names.
    await fields.getByLabel("Language").selectOption({ label: "Deutsch" });
    await fields.getByRole("button", { name: "Save page" }).click();
    await eventually(async () =>
      expect((await pages(ws.write.key).getStatusPage({ id: pageId })).statusPage).toMatchObject({ description: "Everything Acme runs.", language: "de" }),
    );

    const add = page.getByRole("form", { name: "Add a component" });
    // The rule between type and monitor, in the browser as in the API.
    await add.getByRole("button", { name: "Add component" }).click();
    await shows(add.getByText("Monitor: is required when type is monitor"));
    for (const monitor of ["API", "Web"]) {
      await add.getByLabel("Monitor").selectOption({ label: monitor });
      await add.getByRole("button", { name: "Add component" }).click();
      await shows(page.getByRole("button", { name: `Move ${monitor}`, exact: true }));
    }
    await add.getByLabel("Type").selectOption("static");
    await add.getByLabel("Name").fill("Docs");
    await add.getByRole("button", { name: "Add component" }).click();
    await shows(page.getByRole("button", { name: "Move Docs", exact: true }));
    await page.getByRole("form", { name: "Add a group" }).getByLabel("Group name").fill("Core");
    await page.getByRole("button", { name: "Add group" }).click();
    await shows(page.getByRole("heading", { name: "Core" }));
    expect(await componentOrder(ws.write.key, pageId, names)).toEqual(["API", "Web", "Docs"]);

    // By keyboard: pick Docs up, two places up, drop; a screen reader hears each step (dnd-kit's live region is
    // visually hidden: it is there for screen readers, not for the eye).
    const heard = (text: string | RegExp) => page.locator("[id^=DndLiveRegion]", { hasText: text }).waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Move Docs", exact: true }).focus();
    await page.keyboard.press("Space");
    // Picked up, then at once over its own place: the second announcement may replace the first.
    await heard(/Picked up Docs, at position 3 of 4 in the page\.|Docs is over position 3 of 4\./);
    await page.keyboard.press("ArrowUp");
    await heard("Docs is over position 2 of 4.");
    await page.keyboard.press("ArrowUp");
    await heard("Docs is over position 1 of 4.");
    await page.keyboard.press("Space");
    await heard("Docs dropped at position 1 of 4.");
    await eventually(async () => expect(await componentOrder(ws.write.key, pageId, names)).toEqual(["Docs", "API", "Web"]));

    // By mouse: Web dragged above Docs.
    await drag(page, "Move Web", "Move Docs");
    await eventually(async () => expect(await componentOrder(ws.write.key, pageId, names)).toEqual(["Web", "Docs", "API"]));

    // A new page is published; unpublished, visitors get nothing, and published again, the order chosen.
    const publicPage = () => env.api.fetch(`/status/${slug}`);
    await page.getByRole("button", { name: "Unpublish", exact: true }).click();
    await shows(page.getByRole("button", { name: "Publish", exact: true }));
    await eventually(async () => expect((await publicPage()).status).toBe(404));
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await shows(page.getByRole("button", { name: "Unpublish", exact: true }));
    // The public page, as a visitor gets it: the components' names in the order chosen.
    await eventually(async () => {
      const html = await (await publicPage()).text();
      const shown = [...html.matchAll(/<h[34](?: id="[^"]*")?(?: class="name")?>([^<]*)<\/h[34]>/g)].map((m) => m[1]);
      expect(shown.filter((name) => ["Web", "Docs", "API"].includes(name!))).toEqual(["Web", "Docs", "API"]);
    });
    expect(await page.getByRole("link", { name: "Open the public page" }).getAttribute("href")).toBe(`/status/${slug}`);
    await expectAccessible(page as ConsolePage, "status page editor");
    await screenshotBoth(page, "status-page-editor");
  });

  it("shows a real agent's region with its last contact", async () => {
    const agent = await startAgent({ REGION: "hostA-ams", REDIS_URL: redisServerUrl(), REDIS_PREFIX: env.api.redisPrefix, ALLOW_PRIVATE_TARGETS: "true" });
    try {
      const { page } = await signedInAt("viewer", "Regions");
      const row = page.getByTestId("region-row").filter({ hasText: "hostA-ams" });
      await shows(row);
      expect(await row.getByRole("cell").first().textContent()).not.toBe("none");
      await expectAccessible(page, "regions");
      await screenshotBoth(page, "regions");
    } finally {
      await agent.stop();
    }
  });

  it("shows an admin the changes just made, filtered by action and paged", async () => {
    const { ws, person, page } = await signedInAt("admin", "Status pages");
    // A change made in the console, by the person…
    await page.getByLabel("Title").fill("Audited");
    await page.getByLabel("Slug").fill(`audited-${ws.slug}`);
    await page.getByRole("button", { name: "Create page" }).click();
    await shows(heading(page), "Audited");
    const pageId = new URL(page.url()).pathname.split("/").pop()!;
    // …and more through the API with a key than a page of the log holds, so that "Older" has something to show.
    for (let i = 0; i < 26; i++) await pages(ws.write.key).createStatusPageComponentGroup({ group: { pageId, name: `Group ${i}` } });
    await page.getByRole("navigation").getByRole("link", { name: "Audit log", exact: true }).click();
    await shows(heading(page), "Audit log");
    await page.reload();
    await shows(page.getByTestId("audit-entry"));
    expect(await page.getByTestId("audit-entry").count()).toBe(25);
    await page.getByRole("button", { name: "Older" }).click();
    await eventually(async () => expect(await page.getByTestId("audit-entry").count()).toBeGreaterThan(25));
    await expectAccessible(page, "audit log");
    await screenshotBoth(page, "audit-log");

    await page.getByLabel("Action").fill("CreateStatusPage");
    await page.getByRole("button", { name: "Show" }).click();
    await eventually(async () => expect(await page.getByTestId("audit-entry").count()).toBe(1));
    expect(new URL(page.url()).searchParams.get("action")).toBe("CreateStatusPage");
    await shows(page.getByTestId("audit-entry").filter({ hasText: `StatusPage ${pageId}` }).filter({ hasText: person.email }));
    // The filter is in the address: a reload (or a shared link) shows the same.
    await page.reload();
    await eventually(async () => expect(await page.getByTestId("audit-entry").count()).toBe(1));
    expect(await page.getByLabel("Action").inputValue()).toBe("CreateStatusPage");
  });

  it("gives a viewer no edit control on the editor and no audit log, and the API refuses it", async () => {
    const { ws, person, page } = await signedInAt("viewer", "Status pages");
    const { statusPage } = await pages(ws.write.key).createStatusPage({ statusPage: { title: "Read only", slug: `read-only-${ws.slug}` } });
    await pages(ws.write.key).createStatusPageComponent({ component: { pageId: statusPage!.id, type: "static", name: "Docs" } });
    await page.goto(`${env.api.baseUrl}/app/status-pages/${statusPage!.id}`);
    await shows(page.getByText("Docs"));
    for (const control of ["Save page", "Publish", "Move Docs", "Edit Docs", "Remove Docs", "Add component", "Add group", "Create page"]) {
      expect({ control, count: await page.getByRole("button", { name: control, exact: true }).count() }).toEqual({ control, count: 0 });
    }
    expect(await page.getByRole("navigation").getByRole("link", { name: "Audit log" }).count()).toBe(0);
    await expectAccessible(page, "status page for a viewer");

    await page.goto(`${env.api.baseUrl}/app/settings/audit`);
    await shows(page.getByText("this needs an admin's or owner's role"));
    const asViewer = { workspace: ws.slug };
    expect(await refusalCode(sessionClient(StatusPageService, env.api.baseUrl, person.token, asViewer).updateStatusPage({ id: statusPage!.id, statusPage: { title: "x" } }))).toBe("PermissionDenied");
    expect(await refusalCode(sessionClient(AuditLogService, env.api.baseUrl, person.token, asViewer).listAuditLogEntries({}))).toBe("PermissionDenied");
  });
});
