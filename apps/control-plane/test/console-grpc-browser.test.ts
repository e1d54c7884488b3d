import type { GRPCMonitor } from "@vigil/proto";
import { MonitorService, Periodicity } from "@vigil/proto";
import { consoleTestEnvironment, expectAccessible, heading, shows, signInWith } from "./support/console";
import { sessionClient, signedInPerson } from "./support/people";

/**
 * gRPC monitors in the console, in headless Chromium against a real control plane: New monitor's gRPC kind creates
 * one with what is entered (the domain's rules shown before sending), the monitor's page shows what it asks and
 * expects, and the edit form, filled with the stored monitor, changes it.
 */
const env = consoleTestEnvironment("https://vigil.example.com");
const { open } = env;

describe("the console's gRPC monitors", () => {
  it("creates, shows and edits a gRPC monitor", async () => {
    const { slug } = await env.api.workspace();
    const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "editor");
    const page = await open(`${env.api.baseUrl}/app/sign-in`);
    await signInWith(page, person.email, person.password);
    await shows(heading(page), "Monitors");
    const client = sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug });

    await page.goto(`${env.api.baseUrl}/app/monitors/new`);
    await page.getByRole("radio", { name: "gRPC" }).check();
    await page.getByLabel("Name", { exact: true }).fill("Orders");
    await page.getByLabel("Host and port", { exact: true }).fill("orders.example.com");
    await page.getByLabel("Check every", { exact: true }).selectOption("1m");
    await page.getByLabel("Service", { exact: true }).fill("orders.v1.Orders");
    await page.getByRole("button", { name: "Create gRPC monitor" }).click();
    await shows(page.locator(".error").first(), "must be host:port");
    expect((await client.listMonitors({})).totalSize).toBe(0);
    await expectAccessible(page, "the gRPC form with a refusal");

    await page.getByLabel("Host and port", { exact: true }).fill("orders.example.com:443");
    await page.getByLabel("Expected status", { exact: true }).selectOption("NOT_SERVING");
    await page.getByLabel("TLS", { exact: true }).check();
    await page.getByRole("button", { name: "Add metadata entry" }).click();
    await page.getByLabel("Metadata entry 1 name", { exact: true }).fill("x-tenant");
    await page.getByLabel("Metadata entry 1 value", { exact: true }).fill("acme");
    await page.getByRole("button", { name: "Create gRPC monitor" }).click();
    await page.waitForURL((url) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const stored = (await client.getMonitor({ id })).monitor!.config.value as GRPCMonitor;
    expect(stored).toMatchObject({
      name: "Orders",
      uri: "orders.example.com:443",
      periodicity: Periodicity.PERIODICITY_1M,
      service: "orders.v1.Orders",
      expectedStatus: "NOT_SERVING",
      tls: true,
      headers: [{ key: "x-tenant", value: "acme" }],
      certificateExpiryDays: 14n,
    });
    const facts = page.locator("dl.facts");
    await shows(facts, "gRPC");
    await shows(facts, "orders.example.com:443");
    await shows(facts, "orders.v1.Orders");
    await shows(facts, "NOT_SERVING");
    await expectAccessible(page, "a gRPC monitor's page");

    await page.getByRole("main").getByRole("link", { name: "Edit", exact: true }).click();
    await shows(page.getByRole("main"), "gRPC monitor");
    expect(await page.getByLabel("Service", { exact: true }).inputValue()).toBe("orders.v1.Orders");
    expect(await page.getByLabel("Expected status", { exact: true }).inputValue()).toBe("NOT_SERVING");
    await page.getByLabel("Expected status", { exact: true }).selectOption("SERVING");
    await page.getByLabel("TLS", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Remove metadata entry 1" }).click();
    await page.getByRole("button", { name: "Save monitor" }).click();
    await page.waitForURL((url) => url.pathname === `/app/monitors/${id}`);
    expect((await client.getMonitor({ id })).monitor!.config.value).toMatchObject({ expectedStatus: "SERVING", tls: false, headers: [], service: "orders.v1.Orders" });
  });
});
