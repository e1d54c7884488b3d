import { DEFAULTS, regionCodec, type RegionId } from "@vigil/domain";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { consoleTestEnvironment, expectAccessible, heading, shows, type ConsolePage } from "./support/console";
import { sessionClient } from "./support/people";

/**
 * The "Alerting" group of the console's monitor form (alertQuorum, confirmations,
 * recoveryConfirmations) in headless Chromium against a real control plane: what is
 * entered is what the API stores, what is stored is shown, and the domain's rules are
 * shown beside the fields before anything is sent.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

async function signedIn() {
  const { page, person, slug } = await env.signedInAs("editor");
  return { page, client: sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug }) };
}

const label = (page: ConsolePage, text: string) => page.getByLabel(text, { exact: true });
const region = (page: ConsolePage, host: string, location: string) => page.getByRole("group", { name: host, exact: true }).getByLabel(location, { exact: true });
const regionNumbers = (ids: RegionId[]) => ids.map((id) => regionCodec.encode(id));

async function saved(page: ConsolePage, button: string): Promise<string> {
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL((url) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname));
  return new URL(page.url()).pathname.split("/").pop()!;
}

describe("the monitor form's Alerting group", () => {
  it("creates a TCP monitor with its own quorum and confirmations, after showing the rules it broke", async () => {
    const { page, client } = await signedIn();
    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=tcp`);
    await shows(heading(page), "New monitor");
    await shows(page.getByRole("group", { name: "Alerting" }));
    // The defaults: the deployment's quorum, one check each way.
    expect(await label(page, "Alert quorum").inputValue()).toBe("");
    expect(await label(page, "Confirmations").inputValue()).toBe(String(DEFAULTS.confirmations));
    expect(await label(page, "Recovery confirmations").inputValue()).toBe(String(DEFAULTS.confirmations));

    await label(page, "Name").fill("Database");
    await label(page, "Host and port").fill("db.example.com:5432");
    await label(page, "Check every").selectOption("1m");
    await region(page, "hostA", "ams").check();
    await label(page, "Alert quorum").fill("2");
    await label(page, "Confirmations").fill("0");
    await page.getByRole("button", { name: "Create TCP monitor" }).click();
    await shows(page.getByText("Alert quorum: must be at most the number of the monitor's regions (1), not 2"));
    await shows(page.getByText("Confirmations: must be an integer from 1 to 10"));
    await expectAccessible(page, "new TCP monitor with alerting errors");
    expect((await client.listMonitors({})).totalSize).toBe(0);

    await region(page, "hostB", "fra").check();
    await label(page, "Confirmations").fill("3");
    await label(page, "Recovery confirmations").fill("2");
    const id = await saved(page, "Create TCP monitor");
    expect((await client.getMonitor({ id })).monitor!.config).toMatchObject({
      case: "tcp",
      value: { regions: regionNumbers(["hostA-ams", "hostB-fra"]), alertQuorum: "2", confirmations: 3n, recoveryConfirmations: 2n },
    });
  });

  it("shows what is stored when editing, and saves a change of it", async () => {
    const { page, client } = await signedIn();
    const { monitor } = await client.createHTTPMonitor({
      monitor: {
        name: "Shop",
        url: "https://shop.example.com",
        periodicity: Periodicity.PERIODICITY_1M,
        regions: [Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD],
        alertQuorum: "majority",
        confirmations: 4n,
        recoveryConfirmations: 5n,
      },
    });
    await page.goto(`${env.api.baseUrl}/app/monitors/${monitor!.id}/edit`);
    await shows(heading(page), "Edit Shop");
    expect(await label(page, "Alert quorum").inputValue()).toBe("majority");
    expect(await label(page, "Confirmations").inputValue()).toBe("4");
    expect(await label(page, "Recovery confirmations").inputValue()).toBe("5");

    await label(page, "Alert quorum").fill("");
    await label(page, "Recovery confirmations").fill("1");
    expect(await saved(page, "Save monitor")).toBe(monitor!.id);
    expect((await client.getMonitor({ id: monitor!.id })).monitor!.config.value).toMatchObject({ alertQuorum: "", confirmations: 4n, recoveryConfirmations: 1n });
  });
});
