import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Periodicity } from "@vigil/proto";
import { eventually } from "../../../test/eventually";
import { consoleTestEnvironment, expectAccessible, screenshotBoth, shows } from "./support/console";

/**
 * The console's maintenance windows in headless Chromium at a phone's width, against a real control
 * plane: an editor schedules a weekly window from a preset, sees its next occurrences before saving,
 * and the API holds what the form said; a bad custom RRULE is refused in the preview; a viewer reads
 * the list without a control to change it.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

describe("the console's maintenance windows", () => {
  it("lets an editor schedule a weekly window with a preview of its next occurrences, edit and delete it", async () => {
    const { ws, page } = await env.signedInAt("editor", "Maintenance");
    const { monitor } = await env.api.client(ws.write.key).createTCPMonitor({ monitor: { name: "Database", uri: "example.com:5432", periodicity: Periodicity.PERIODICITY_1M } });
    const pages = env.api.statusPageClient(ws.write.key);
    const pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: `maintenance-${ws.slug}` } })).statusPage!.id;
    const web = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Website" } })).component!.id;
    await page.reload();
    await shows(page.getByText("No maintenance window yet."));

    await page.getByLabel("Maintenance title").fill("Database upgrade");
    await page.getByLabel("Message", { exact: true }).fill("The database **restarts**.");
    // 22 March 2030 is a Friday; Berlin moves to summer time on the 31st.
    await page.getByLabel("Starts (UTC)").fill("2030-03-22T01:00");
    await page.getByLabel("Ends (UTC)").fill("2030-03-22T02:00");
    await page.getByLabel("Repeats").selectOption("weekly");
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    const preview = page.getByRole("region", { name: "Next occurrences" });
    await shows(preview.getByText("2030-03-22 01:00 – 2030-03-22 02:00 UTC"));
    await shows(preview.getByText("2030-03-29 01:00 – 2030-03-29 02:00 UTC"));
    // After the change to summer time, 02:00 in Berlin is 00:00 UTC.
    await shows(preview.getByText("2030-04-05 00:00 – 2030-04-05 01:00 UTC"));

    await page.getByLabel("Repeats").selectOption("custom");
    await page.getByLabel("RRULE").fill("FREQ=WEEKLY;BYDAI=FR");
    await shows(preview.getByRole("alert"), "BYDAI is not a rule part");
    await page.getByLabel("RRULE").fill("FREQ=WEEKLY;BYDAY=FR;COUNT=2");
    await shows(preview.getByText("2030-03-29 01:00 – 2030-03-29 02:00 UTC"));
    expect(await preview.locator("li").count()).toBe(2);

    await page.getByLabel("Database").check();
    await page.getByLabel("Website").check();
    await expectAccessible(page, "maintenance form");
    await page.getByRole("button", { name: "Schedule", exact: true }).click();

    const row = page.getByTestId("maintenance").filter({ hasText: "Database upgrade" });
    await shows(row);
    const windows = env.api.maintenanceClient(ws.write.key);
    const [saved] = (await windows.listMaintenanceWindows({})).maintenances;
    expect(saved).toMatchObject({
      title: "Database upgrade",
      message: "The database **restarts**.",
      recurrence: "FREQ=WEEKLY;BYDAY=FR;COUNT=2",
      timezone: "Europe/Berlin",
      monitorIds: [monitor!.id],
      pageComponentIds: [web],
    });
    expect(timestampDate(saved!.startsAt!).toISOString()).toBe("2030-03-22T01:00:00.000Z");
    await expectAccessible(page, "maintenance list");
    await screenshotBoth(page, "maintenance");

    // Edited: the form opens with what is stored (the custom rule, the choices) and saves every field.
    await row.getByRole("button", { name: "Edit Database upgrade" }).click();
    const edit = page.getByRole("form", { name: "Edit Database upgrade" });
    await shows(edit);
    expect(await edit.getByLabel("RRULE").inputValue()).toBe("FREQ=WEEKLY;BYDAY=FR;COUNT=2");
    expect(await edit.getByLabel("Database").isChecked()).toBe(true);
    await edit.getByLabel("Maintenance title").fill("Database upgrade, longer");
    await edit.getByLabel("Ends (UTC)").fill("2030-03-22T03:00");
    await edit.getByLabel("Repeats").selectOption("once");
    await edit.getByLabel("Website").uncheck();
    await shows(edit.getByRole("region", { name: "Next occurrences" }).getByText("2030-03-22 01:00 – 2030-03-22 03:00 UTC"));
    await expectAccessible(page, "maintenance edit form");
    await edit.getByRole("button", { name: "Save maintenance" }).click();
    await shows(page.getByTestId("maintenance").filter({ hasText: "Database upgrade, longer" }));
    const [changed] = (await windows.listMaintenanceWindows({})).maintenances;
    expect(changed).toMatchObject({ title: "Database upgrade, longer", recurrence: "", monitorIds: [monitor!.id], pageComponentIds: [] });
    expect(timestampDate(changed!.endsAt!).toISOString()).toBe("2030-03-22T03:00:00.000Z");

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete Database upgrade, longer" }).click();
    await shows(page.getByText("No maintenance window yet."));
    await eventually(async () => expect((await windows.listMaintenanceWindows({})).maintenances).toEqual([]));
  });

  it("shows a viewer the windows without a control to change them", async () => {
    const { ws, page } = await env.signedInAt("viewer", "Maintenance");
    const { monitor } = await env.api.client(ws.write.key).createTCPMonitor({ monitor: { name: "Cache", uri: "example.com:6379", periodicity: Periodicity.PERIODICITY_1M } });
    await env.api.maintenanceClient(ws.write.key).createMaintenanceWindow({
      maintenance: { title: "Cache flush", startsAt: { seconds: 1_900_000_000n }, endsAt: { seconds: 1_900_003_600n }, monitorIds: [monitor!.id] },
    });
    await page.reload();
    await shows(page.getByTestId("maintenance").filter({ hasText: "Cache flush" }));
    expect(await page.getByRole("button", { name: "Delete Cache flush" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Schedule maintenance" }).count()).toBe(0);
    await expectAccessible(page, "maintenance list, viewer");
  });
});
