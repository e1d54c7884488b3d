import { MonitorService, IncidentService, Periodicity } from "@vigil/proto";
import { storeResults } from "../src/results/store";
import { STATUS_RULES } from "./support/api";
import { consoleTestEnvironment, expectAccessible, heading, shows, signInWith, type ConsolePage } from "./support/console";
import { sessionClient, signedInPerson } from "./support/people";
import { checkResult } from "./support/results";

/**
 * dependsOn in the console, in headless Chromium against a real control plane: the "Depends on" choices of the
 * checked kinds' form and of the heartbeat form, a cycle refused by the API shown beside them, and an incident's
 * page listing the monitors it also affected.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

async function signedIn() {
  const { slug } = await env.api.workspace();
  const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "editor");
  const page = await env.open(`${env.api.baseUrl}/app/sign-in`);
  await signInWith(page, person.email, person.password);
  await shows(heading(page), "Monitors");
  const client = sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug });
  const incidents = sessionClient(IncidentService, env.api.baseUrl, person.token, { workspace: slug });
  return { page, client, incidents };
}

const label = (page: ConsolePage, text: string) => page.getByLabel(text, { exact: true });
const dependsOn = (page: ConsolePage) => page.getByRole("group", { name: "Depends on" });

async function saved(page: ConsolePage, button: string): Promise<string> {
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL((url) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname));
  return new URL(page.url()).pathname.split("/").pop()!;
}

describe("monitor dependencies in the console", () => {
  it("a new TCP monitor and a heartbeat choose the monitors they depend on; editing shows them, never the monitor itself, and a cycle is refused", async () => {
    const { page, client } = await signedIn();
    const periodicity = Periodicity.PERIODICITY_1M;
    const root = (await client.createHTTPMonitor({ monitor: { name: "Gateway", url: "https://gw.example.com", periodicity } })).monitor!;
    const other = (await client.createHTTPMonitor({ monitor: { name: "Other", url: "https://other.example.com", periodicity } })).monitor!;

    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=tcp`);
    await shows(heading(page), "New monitor");
    await label(page, "Name").fill("Database");
    await label(page, "Host and port").fill("db.example.com:5432");
    await label(page, "Check every").selectOption("1m");
    await dependsOn(page).getByLabel("Gateway", { exact: true }).check();
    await expectAccessible(page, "new TCP monitor with a dependency");
    const db = await saved(page, "Create TCP monitor");
    expect((await client.getMonitor({ id: db })).monitor!.config).toMatchObject({ case: "tcp", value: { dependsOn: [root.id] } });

    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=heartbeat`);
    await shows(heading(page), "New monitor");
    await label(page, "Name").fill("Nightly job");
    await dependsOn(page).getByLabel("Database", { exact: true }).check();
    await dependsOn(page).getByLabel("Other", { exact: true }).check();
    const job = await saved(page, "Create heartbeat monitor");
    expect(new Set(((await client.getMonitor({ id: job })).monitor!.config.value as { dependsOn: string[] }).dependsOn)).toEqual(new Set([db, other.id]));

    // Editing the gateway: its own name is no choice; making it depend on the job would close a cycle.
    await page.goto(`${env.api.baseUrl}/app/monitors/${root.id}/edit`);
    await shows(heading(page), "Edit Gateway");
    await shows(dependsOn(page).getByLabel("Nightly job", { exact: true }));
    expect(await dependsOn(page).getByLabel("Gateway", { exact: true }).count()).toBe(0);
    await dependsOn(page).getByLabel("Nightly job", { exact: true }).check();
    await page.getByRole("button", { name: "Save monitor" }).click();
    await shows(page.getByText(`Depends on: makes a cycle: Gateway (${root.id}) → Nightly job (${job}) → Database (${db}) → Gateway (${root.id})`));
    await expectAccessible(page, "monitor form with a refused cycle");
    expect(((await client.getMonitor({ id: root.id })).monitor!.config.value as { dependsOn: string[] }).dependsOn).toEqual([]);

    // The stored choice is shown, and unchecking it clears it.
    await page.goto(`${env.api.baseUrl}/app/monitors/${db}/edit`);
    await shows(heading(page), "Edit Database");
    expect(await dependsOn(page).getByLabel("Gateway", { exact: true }).isChecked()).toBe(true);
    await dependsOn(page).getByLabel("Gateway", { exact: true }).uncheck();
    expect(await saved(page, "Save monitor")).toBe(db);
    expect(((await client.getMonitor({ id: db })).monitor!.config.value as { dependsOn: string[] }).dependsOn).toEqual([]);
  });

  it("an incident's page lists the monitors it also affected, linked", async () => {
    const { page, client, incidents } = await signedIn();
    const periodicity = Periodicity.PERIODICITY_1M;
    const root = (await client.createTCPMonitor({ monitor: { name: "Core switch", uri: "switch.example.com:22", periodicity } })).monitor!;
    const app = (await client.createHTTPMonitor({ monitor: { name: "App", url: "https://app.example.com", periodicity, dependsOn: [root.id] } })).monitor!;
    const at = new Date(Date.now() - 60_000).toISOString();
    await storeResults(env.api.db.prisma, [checkResult(root.id, "hostA-ams", at, "error")], STATUS_RULES);
    await storeResults(env.api.db.prisma, [checkResult(app.id, "hostA-ams", at, "error")], STATUS_RULES);
    const [incident] = (await incidents.listIncidents({ monitorId: root.id })).incidents;

    await page.goto(`${env.api.baseUrl}/app/incidents/${incident!.id}`);
    await shows(heading(page), "Incident of Core switch");
    const affected = page.getByRole("list", { name: "Also affected" });
    await shows(affected.getByRole("link", { name: "App" }));
    await expectAccessible(page, "incident with also affected monitors");
    await affected.getByRole("link", { name: "App" }).click();
    await page.waitForURL((url) => url.pathname === `/app/monitors/${app.id}`);
  });
});
