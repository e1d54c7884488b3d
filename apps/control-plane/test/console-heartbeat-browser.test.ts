import type { HeartbeatMonitor } from "@vigil/proto";
import { MonitorService } from "@vigil/proto";
import { consoleTestEnvironment, expectAccessible, heading, shows, signInWith } from "./support/console";
import { sessionClient, signedInPerson } from "./support/people";

/**
 * Heartbeat monitors in the console, in headless Chromium against a real control plane: the form creates and edits
 * one with what is entered, the domain's rules are shown before sending, and the monitor's page shows its ping URL
 * and the pings a job sent over HTTP, with the run's duration.
 */
const env = consoleTestEnvironment("https://vigil.example.com");
const { open } = env;

describe("the console's heartbeat monitors", () => {
  it("creates, shows, pings and edits a heartbeat monitor", async () => {
    const { slug } = await env.api.workspace();
    const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "editor");
    const page = await open(`${env.api.baseUrl}/app/sign-in`);
    await signInWith(page, person.email, person.password);
    await shows(heading(page), "Monitors");
    const client = sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug });

    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=heartbeat`);
    await page.getByLabel("Name", { exact: true }).fill("Nightly backup");
    await page.getByLabel("Cron expression", { exact: true }).fill("0 3 * * *");
    await page.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus");
    await page.getByRole("button", { name: "Create heartbeat monitor" }).click();
    await shows(page.locator(".error").first(), "Time zone: must be an IANA time zone, e.g. UTC or Europe/Paris");
    expect((await client.listMonitors({})).totalSize).toBe(0);
    await expectAccessible(page, "the heartbeat form with a refusal");

    await page.getByLabel("Time zone", { exact: true }).fill("Europe/Paris");
    await page.getByLabel("Grace (seconds)", { exact: true }).fill("600");
    await page.getByLabel("Active (silence fails it)", { exact: true }).check();
    await page.getByRole("button", { name: "Create heartbeat monitor" }).click();
    await page.waitForURL((url) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const stored = (await client.getMonitor({ id })).monitor!.config.value as HeartbeatMonitor;
    expect(stored).toMatchObject({ name: "Nightly backup", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600n, active: true });
    await shows(page.locator("code"), stored.pingUrl);
    await shows(page.getByText("No pings yet."), "No pings yet.");

    // The job: a start, then its end with an exit code and its log, 0 is a success.
    const path = new URL(stored.pingUrl).pathname;
    expect((await env.api.fetch(`${path}/start`)).status).toBe(200);
    expect((await env.api.fetch(`${path}/0`, { method: "POST", body: "3 files backed up" })).status).toBe(200);
    await page.reload();
    const rows = page.getByRole("region", { name: "Pings" }).locator("tbody tr");
    await shows(rows.first(), "3 files backed up");
    expect(await rows.count()).toBe(2);
    expect(await rows.first().locator("td").nth(1).textContent()).toBe("success");
    expect(await rows.first().locator("td").nth(3).textContent()).toMatch(/^\d+\.\d s$/);
    await expectAccessible(page, "a heartbeat monitor's page");

    await page.getByRole("main").getByRole("link", { name: "Edit", exact: true }).click();
    await page.getByLabel("Cron expression", { exact: true }).fill("");
    await page.getByLabel("Period (seconds)", { exact: true }).fill("300");
    await page.getByRole("button", { name: "Save monitor" }).click();
    await page.waitForURL((url) => url.pathname === `/app/monitors/${id}`);
    expect((await client.getMonitor({ id })).monitor!.config.value).toMatchObject({ periodSeconds: 300n, cron: "", graceSeconds: 600n, pingUrl: stored.pingUrl });
  });
});
