import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { startVigil, vigil } from "./support/cli.js";

/** `vigil status-pages incidents …` run as a subprocess against a real API server. */
describe("vigil status-pages incidents", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;
  let pageId: string;
  let web: string;
  let db: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    home = await mkdtemp(join(tmpdir(), "vigil-cli-incidents-"));
    const pages = api.statusPageClient(ws.write.key);
    pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: "cli-incidents" } })).statusPage!.id;
    web = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Web" } })).component!.id;
    db = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "DB" } })).component!.id;
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const env = (key = ws.write.key): NodeJS.ProcessEnv => ({ HOME: home, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: key });
  async function ok(args: string[], key?: string): Promise<string> {
    const run = await vigil(["status-pages", "incidents", ...args], env(key));
    expect({ args, ...run }).toMatchObject({ code: 0, stderr: "" });
    return run.stdout;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const okJson = async (args: string[]): Promise<any> => JSON.parse(await ok([...args, "-o", "json"]));

  it("creates an incident with components, adds updates, resolves it with a postmortem, lists, shows and deletes it", async () => {
    const created = await okJson(["create", pageId, "--title", "Checkout errors", "--status", "investigating", "--message", "Looking **now**", "--component", `${web}=major_outage`, "--component", `${db}=degraded_performance`]);
    const id: string = created.incident.id;
    expect(created.incident).toMatchObject({
      pageId,
      title: "Checkout errors",
      status: "investigating",
      components: [
        { componentId: web, impact: "major_outage" },
        { componentId: db, impact: "degraded_performance" },
      ],
      updates: [{ status: "investigating", message: "Looking **now**" }],
    });

    // A message of several lines from stdin.
    const run = startVigil(["status-pages", "incidents", "add-update", id, "--status", "identified", "--message-file", "-"], env(), "## Found\n\nA full disk.\n");
    expect(await run.done).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout()).toMatch(/^status\s+identified$/m);
    expect(run.stdout()).toMatch(/identified\s+## Found A full disk\.$/m);

    expect(await ok(["add-update", id, "--status", "resolved", "--message", "Fixed"])).toMatch(/^status\s+resolved$/m);
    const postmortem = join(home, "postmortem.md");
    await writeFile(postmortem, "# What happened\n\nThe disk filled up.\n");
    const updated = await okJson(["update", id, "--postmortem-file", postmortem, "--title", "Checkout errors (disk)", "--component", `${web}=partial_outage`]);
    expect(updated.incident).toMatchObject({ title: "Checkout errors (disk)", postmortem: "# What happened\n\nThe disk filled up.\n", components: [{ componentId: web, impact: "partial_outage" }] });
    expect(updated.incident.updates.map((u: { status: string }) => u.status)).toEqual(["resolved", "identified", "investigating"]);

    const list = await ok(["list", pageId]);
    expect(list.split("\n")[0]!.split(/\s{2,}/)).toEqual(["ID", "TITLE", "STATUS", "STARTED", "RESOLVED", "UPDATES", "COMPONENTS"]);
    expect(list).toMatch(new RegExp(`^${id}\\s+Checkout errors \\(disk\\)\\s+resolved\\s+\\S+\\s+\\S+\\s+3\\s+1$`, "m"));
    expect((await okJson(["list", pageId, "--limit", "1"])).totalSize).toBe(1);
    const shown = await ok(["get", id]);
    expect(shown).toMatch(/^title\s+Checkout errors \(disk\)$/m);
    expect(shown).toMatch(/^TIME\s+STATUS\s+MESSAGE$/m);

    expect(await ok(["update", id, "--clear", "postmortem"])).not.toMatch(/^postmortem[ \t]+\S/m);
    expect(await ok(["delete", id])).toBe(`deleted incident ${id}\n`);
    expect((await okJson(["list", pageId])).incidents ?? []).toEqual([]);
  });

  it("says what the API refuses, and needs a write key to write", async () => {
    const refused = await vigil(["status-pages", "incidents", "create", pageId, "--title", "t", "--status", "fixed", "--message", "m"], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("incident.status: must be one of investigating, identified, monitoring, resolved");
    const badComponent = await vigil(["status-pages", "incidents", "create", pageId, "--title", "t", "--component", "no-impact"], env());
    expect(badComponent.code).toBe(2);
    expect(badComponent.stderr).toContain('must be "<component-id>=<impact>"');
    const both = await vigil(["status-pages", "incidents", "create", pageId, "--title", "t", "--status", "identified", "--message", "m", "--message-file", "-"], env());
    expect(both.stderr).toContain("give --message or --message-file, not both");
    const readOnly = await vigil(["status-pages", "incidents", "create", pageId, "--title", "t", "--status", "identified", "--message", "m"], env(ws.read.key));
    expect(readOnly.code).not.toBe(0);
    expect(readOnly.stderr).toContain("needs a write key");
    expect((await okJson(["list", pageId])).incidents ?? []).toEqual([]);
  });
});
