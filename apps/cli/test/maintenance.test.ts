import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Periodicity } from "@vigil/proto";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil } from "./support/cli.js";

/** `vigil maintenance …` run as a subprocess against a real API server. */
describe("vigil maintenance", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;
  let monitorId: string;
  let componentId: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    home = await mkdtemp(join(tmpdir(), "vigil-cli-maintenance-"));
    monitorId = (await api.client(ws.write.key).createTCPMonitor({ monitor: { name: "db", uri: "example.com:5432", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
    const pages = api.statusPageClient(ws.write.key);
    const pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: "cli-maintenance" } })).statusPage!.id;
    componentId = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Web" } })).component!.id;
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const env = (key = ws.write.key): NodeJS.ProcessEnv => ({ HOME: home, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: key });
  async function ok(args: string[], key?: string): Promise<string> {
    const run = await vigil(["maintenance", ...args], env(key));
    expect({ args, ...run }).toMatchObject({ code: 0, stderr: "" });
    return run.stdout;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const okJson = async (args: string[]): Promise<any> => JSON.parse(await ok([...args, "-o", "json"]));

  it("creates a recurring window, shows its next occurrences, lists, updates, clears and deletes it", async () => {
    const message = join(home, "message.md");
    await writeFile(message, "## Upgrade\n\nThe database restarts.\n");
    const created = await okJson([
      "create", "--title", "DB upgrade", "--starts-at", "2030-03-03T01:00:00Z", "--ends-at", "2030-03-03T02:00:00Z",
      "--recurrence", "FREQ=WEEKLY;BYDAY=SU;COUNT=2", "--timezone", "Europe/Berlin", "--monitors", monitorId, "--components", componentId, "--message-file", message,
    ]);
    const id: string = created.maintenance.id;
    expect(created.maintenance).toMatchObject({
      title: "DB upgrade",
      message: "## Upgrade\n\nThe database restarts.\n",
      recurrence: "FREQ=WEEKLY;BYDAY=SU;COUNT=2",
      timezone: "Europe/Berlin",
      monitorIds: [monitorId],
      pageComponentIds: [componentId],
      nextOccurrences: [
        { startsAt: "2030-03-03T01:00:00Z", endsAt: "2030-03-03T02:00:00Z" },
        { startsAt: "2030-03-10T01:00:00Z", endsAt: "2030-03-10T02:00:00Z" },
      ],
    });

    const shown = await ok(["get", id]);
    expect(shown).toMatch(/^title\s+DB upgrade$/m);
    expect(shown).toMatch(/^2030-03-10T01:00:00.000Z\s+2030-03-10T02:00:00.000Z$/m);
    const listed = await ok(["list"]);
    expect(listed).toMatch(new RegExp(`^${id}\\s+DB upgrade\\s+2030-03-03T01:00:00.000Z`, "m"));
    expect((await okJson(["list", "--limit", "1"])).maintenances).toHaveLength(1);

    const renamed = await okJson(["update", id, "--title", "DB upgrade 2", "--clear", "message,pageComponentIds"]);
    expect(renamed.maintenance).toMatchObject({ title: "DB upgrade 2", message: "", monitorIds: [monitorId] });
    // JSON output leaves empty lists out.
    expect(renamed.maintenance.pageComponentIds ?? []).toEqual([]);

    expect(await ok(["delete", id])).toBe(`deleted maintenance window ${id}\n`);
    expect((await okJson(["list"])).maintenances ?? []).toEqual([]);
  });

  it("passes the API's refusal on, naming the field, and a read key's", async () => {
    const bad = await vigil(["maintenance", "create", "--title", "x", "--starts-at", "2030-03-03T01:00:00Z", "--ends-at", "2030-03-03T02:00:00Z", "--monitors", monitorId, "--recurrence", "FREQ=WEEKLY;BYDAI=SU"], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("maintenance.recurrence: must be an RFC 5545 RRULE: BYDAI is not a rule part");
    const refused = await vigil(["maintenance", "create", "--title", "x", "--starts-at", "2030-03-03T01:00:00Z", "--ends-at", "2030-03-03T02:00:00Z", "--monitors", monitorId], env(ws.read.key));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("CreateMaintenanceWindow changes data and needs an API key with the write scope");
  });
});
