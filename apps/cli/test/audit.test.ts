import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { signedInPerson, type Person } from "../../control-plane/test/support/people.js";
import { vigil } from "./support/cli.js";

/** `vigil audit` with an admin's session: the workspace's log, filtered and paged; keys and editors are refused. */
describe.each(BACKENDS)("vigil audit on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let admin: Person;
  let home: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
    const pages = api.statusPageClient(ws.write.key);
    const { statusPage } = await pages.createStatusPage({ statusPage: { title: "Acme", slug: `cli-${backend}` } });
    await pages.unpublishStatusPage({ id: statusPage!.id });
    home = await mkdtemp(join(tmpdir(), "vigil-cli-audit-"));
  });
  afterAll(async () => {
    await api?.close();
    await rm(home, { recursive: true, force: true });
  });

  const run = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string) => vigil(args, { HOME: home, SERVICE_API_URL: api.baseUrl, ...env }, input);

  it("prints the entries newest first, filtered by action and time, as a table or JSON, a page at a time", async () => {
    expect(await run(["login", "--email", admin.email], {}, `${admin.password}\n`)).toMatchObject({ code: 0 });
    const table = await run(["audit", "--since", "1h"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const lines = table.stdout.split("\n");
    expect(lines[0]).toMatch(/^TIME\s+ACTOR\s+ACTION\s+TARGET\s+CHANGES/);
    // The admin's own sign-in (by `vigil login`) first, then the key's change.
    expect(lines[1]).toMatch(new RegExp(`${admin.email}\\s+POST /v1/auth/sign-in`));
    expect(lines[2]).toMatch(/key vgl_\S+…\s+status_page\.v1\.StatusPageService\/UnpublishStatusPage/);

    const filtered = await run(["audit", "--action", "CreateStatusPage", "--json"]);
    expect(filtered).toMatchObject({ code: 0, stderr: "" });
    const answer = JSON.parse(filtered.stdout);
    expect(answer.entries.map((e: { method: string }) => e.method)).toEqual(["status_page.v1.StatusPageService/CreateStatusPage"]);
    expect(answer.entries[0].changes.statusPage).toMatchObject({ title: "Acme" });

    const first = JSON.parse((await run(["audit", "--limit", "1", "--json"])).stdout);
    expect(first.entries).toHaveLength(1);
    const second = JSON.parse((await run(["audit", "--limit", "1", "--cursor", first.nextCursor, "--json"])).stdout);
    expect(second.entries[0].method).toBe("status_page.v1.StatusPageService/UnpublishStatusPage");
  });

  it("refuses a time that is neither an ISO time nor a duration, a bad limit, and an API key", async () => {
    const since = await run(["audit", "--since", "yesterday"]);
    expect(since.code).not.toBe(0);
    expect(since.stderr).toContain("must be an ISO time (2026-11-23T10:00:00Z) or a duration such as 30m, 12h, 7d");
    const limit = await run(["audit", "--limit", "0"]);
    expect(limit.code).not.toBe(0);
    expect(limit.stderr).toContain("limit: must be an integer from 1 to 100");
    const key = await run(["audit"], { HOME: join(home, "nobody"), SERVICE_API_KEY: ws.write.key });
    expect(key.code).not.toBe(0);
    expect(key.stderr).toContain("no API key may do it");
  });
});
