import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil } from "./support/cli.js";

/** `vigil status-pages subscribers …` and the page's subscriptions toggle, run as a subprocess against a real API server. */
describe("vigil status-pages subscribers", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;
  let pageId: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    home = await mkdtemp(join(tmpdir(), "vigil-cli-subscribers-"));
    const pages = api.statusPageClient(ws.write.key);
    pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: "cli-subscribers" } })).statusPage!.id;
    // Subscribers come from the public form; here they are written as it writes them, 150 of them to need two list calls.
    await api.db.prisma.statusPageSubscriber.createMany({
      data: Array.from({ length: 150 }, (_, i) => ({
        pageId,
        kind: "email",
        email: i === 0 ? "=cmd@example.com" : `reader-${String(i).padStart(3, "0")}@example.com`,
        unsubscribeTokenHash: `cli-${i}`,
        confirmedAt: i % 2 === 0 ? new Date("2026-11-29T10:00:00Z") : null,
        createdAt: new Date(Date.UTC(2026, 10, 29, 9, 0, i)),
      })),
    });
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const env = (key = ws.write.key): NodeJS.ProcessEnv => ({ HOME: home, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: key });
  async function ok(args: string[], key?: string): Promise<string> {
    const run = await vigil(["status-pages", ...args], env(key));
    expect({ args, ...run }).toMatchObject({ code: 0, stderr: "" });
    return run.stdout;
  }

  it("lists a page of subscribers, exports all of them as CSV, and removes one", async () => {
    const listed = await ok(["subscribers", "list", pageId, "--limit", "2"], ws.read.key);
    expect(listed).toMatch(/^ID\s+KIND\s+ADDRESS\s+CONFIRMED\s+COMPONENTS\s+SINCE$/m);
    expect(listed).toMatch(/email\s+reader-001@example\.com\s+no\s+all/);
    expect(listed.trim().split("\n")).toHaveLength(3);

    const csv = (await ok(["subscribers", "export", pageId], ws.read.key)).trimEnd().split("\n");
    expect(csv[0]).toBe("id,kind,email,webhook_url,component_ids,confirmed,confirmed_at,created_at");
    expect(csv).toHaveLength(151);
    // A formula is written as text.
    expect(csv[1]).toMatch(/^[^,]+,email,'=cmd@example\.com,,,true,2026-11-29T10:00:00\.000Z,2026-11-29T09:00:00\.000Z$/);
    expect(csv[150]).toMatch(/,reader-149@example\.com,,,false,,/);

    const id = csv[2]!.split(",")[0]!;
    expect(await ok(["subscribers", "remove", id])).toBe(`removed subscriber ${id}\n`);
    expect(JSON.parse(await ok(["subscribers", "list", pageId, "-o", "json"])).totalSize).toBe(149);
    const refused = await vigil(["status-pages", "subscribers", "remove", id], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not found/);
  });

  it("turns a page's subscriptions off and on", async () => {
    expect(JSON.parse(await ok(["update", pageId, "--no-subscriptions", "-o", "json"])).statusPage.subscriptionsEnabled).toBe(false);
    expect(JSON.parse(await ok(["update", pageId, "--subscriptions", "-o", "json"])).statusPage.subscriptionsEnabled).toBe(true);
  });
});
