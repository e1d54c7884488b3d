import { readFile } from "node:fs/promises";
import { eventually } from "../../../test/eventually";
import { consoleTestEnvironment, expectAccessible, heading, screenshotBoth, shows } from "./support/console";

/**
 * A page's subscribers in the console, in headless Chromium at a phone's width against a real control
 * plane: an editor lists them, exports them as CSV, removes one and turns subscriptions off; and the
 * public page's subscription form, light and dark.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

describe("the console's status page subscribers", () => {
  it("lists, exports, removes, and turns subscriptions off; the public page shows the form until then", async () => {
    const { ws, page } = await env.signedInAt("editor", "Status pages");
    const client = env.api.statusPageClient(ws.write.key);
    const slug = `subscribers-${ws.slug}`;
    const pageId = (await client.createStatusPage({ statusPage: { title: "Acme", slug } })).statusPage!.id;
    await client.createStatusPageComponent({ component: { pageId, type: "static", name: "Website" } });
    // As the public form writes them: one confirmed, one waiting.
    await env.api.db.prisma.statusPageSubscriber.createMany({
      data: [
        { pageId, kind: "email", email: "ann@example.com", unsubscribeTokenHash: `${slug}-1`, confirmedAt: new Date(), createdAt: new Date(Date.now() - 1000) },
        { pageId, kind: "email", email: "bob@example.com", unsubscribeTokenHash: `${slug}-2` },
      ],
    });

    // The public page's form, as a visitor sees it.
    await page.goto(`${env.api.baseUrl}/status/${slug}`);
    await shows(page.getByRole("heading", { name: "Get updates" }));
    await shows(page.getByLabel("Email address"));
    await shows(page.getByRole("link", { name: "incident feed (Atom)" }));
    await expectAccessible(page, "public subscription form");
    await screenshotBoth(page, "status-page-subscribe-form");

    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}`);
    await shows(heading(page), "Acme");
    await page.getByRole("link", { name: "Subscribers", exact: true }).click();
    await shows(heading(page), "Subscribers of Acme");
    const table = page.getByRole("region", { name: "Subscribers" });
    await shows(table.getByRole("cell", { name: "ann@example.com" }));
    await shows(table.getByRole("cell", { name: "Waiting" }));
    await expectAccessible(page, "subscribers");
    await screenshotBoth(page, "status-page-subscribers");

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const csv = await readFile((await (await download).path())!, "utf8");
    expect(csv.split("\n")[0]).toBe("id,kind,email,webhook_url,component_ids,confirmed,confirmed_at,created_at");
    expect(csv).toMatch(/,email,ann@example\.com,,,true,/);
    expect(csv).toMatch(/,email,bob@example\.com,,,false,,/);

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Remove bob@example.com" }).click();
    await eventually(async () => expect((await client.listStatusPageSubscribers({ pageId })).subscribers.map((s) => s.email)).toEqual(["ann@example.com"]));
    await eventually(async () => expect(await table.getByRole("cell", { name: "bob@example.com" }).count()).toBe(0));

    await page.getByRole("link", { name: "Back to Acme" }).click();
    await page.getByLabel("Visitors may subscribe (by email or webhook)").uncheck();
    await page.getByRole("button", { name: "Save page" }).click();
    await eventually(async () => expect((await client.getStatusPage({ id: pageId })).statusPage?.subscriptionsEnabled).toBe(false));
    const publicPage = await (await env.api.fetch(`/status/${slug}`)).text();
    expect(publicPage).not.toContain(`action="/status/${slug}/subscribe"`);
  });

  it("shows a viewer the list without a control to remove", async () => {
    const { ws, page } = await env.signedInAt("viewer", "Status pages");
    const client = env.api.statusPageClient(ws.write.key);
    const pageId = (await client.createStatusPage({ statusPage: { title: "Readonly", slug: `readonly-${ws.slug}` } })).statusPage!.id;
    await env.api.db.prisma.statusPageSubscriber.create({ data: { pageId, kind: "email", email: "cy@example.com", unsubscribeTokenHash: `ro-${ws.slug}`, confirmedAt: new Date() } });
    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}/subscribers`);
    await shows(page.getByRole("cell", { name: "cy@example.com" }));
    expect(await page.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
    await shows(page.getByRole("button", { name: "Export CSV" }));
  });
});
