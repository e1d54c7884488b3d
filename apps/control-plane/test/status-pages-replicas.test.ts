import { startTestApi, type Replica, type TestApi } from "./support/api";

describe("status pages across control planes (PostgreSQL, real Redis)", () => {
  let api: TestApi;
  let replica: Replica;
  let replicaUrl: string;

  beforeAll(async () => {
    api = await startTestApi("postgres");
    // A second control plane of the same deployment: the same database, the same Redis keys.
    replica = await api.startReplica();
    replicaUrl = replica.baseUrl;
  });
  afterAll(async () => {
    await replica.close();
    await api.close();
  });

  it("ends the other control plane's cached copy as soon as a page is unpublished through one", async () => {
    const { write } = await api.workspace();
    const pages = api.statusPageClient(write.key);
    const { statusPage } = await pages.createStatusPage({ statusPage: { title: "Shared", slug: "shared-across" } });
    await pages.createStatusPageComponent({ component: { pageId: statusPage!.id, type: "static", name: "Everything" } });
    // The replica has the page in its cache now.
    const before = await fetch(`${replicaUrl}/status/shared-across`);
    expect(before.status).toBe(200);
    expect(await before.text()).toContain("Everything");

    const heard = new Promise<string>((resolve) => replica.pipeline.pageChanges.subscribe(resolve));
    await pages.unpublishStatusPage({ id: statusPage!.id });
    // Told through Redis, not left to expire: the replica answers 404 the moment it hears.
    expect(await heard).toBe(statusPage!.id);
    expect((await fetch(`${replicaUrl}/status/shared-across`)).status).toBe(404);
  });

  it("counts wrong passwords across control planes: the eleventh in a minute is refused on either", async () => {
    const { write } = await api.workspace();
    const pages = api.statusPageClient(write.key);
    await pages.createStatusPage({ statusPage: { title: "Locked", slug: "locked-across", accessType: "password", password: "the right one" } });
    const wrong = (baseUrl: string) =>
      fetch(`${baseUrl}/status/locked-across/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password: "a wrong one" }),
        redirect: "manual",
      });
    for (let i = 0; i < 10; i++) expect((await wrong(i % 2 === 0 ? api.baseUrl : replicaUrl)).status).toBe(401);
    for (const baseUrl of [api.baseUrl, replicaUrl]) {
      const refused = await wrong(baseUrl);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("counts wrong passwords sent at once to both control planes together: 10 are verified in all", async () => {
    const { write } = await api.workspace();
    const pages = api.statusPageClient(write.key);
    await pages.createStatusPage({ statusPage: { title: "Burst", slug: "burst-across", accessType: "password", password: "the right one" } });
    const attempt = (baseUrl: string, password: string) =>
      fetch(`${baseUrl}/status/burst-across/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password }),
        redirect: "manual",
      });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(i % 2 === 0 ? api.baseUrl : replicaUrl, `wrong ${i}`)));
    // Each answer's status beside the start of its text, so that a failure shows what the odd one said.
    const said = await Promise.all(answers.map(async (res) => `${res.status} ${res.status === 401 || res.status === 429 ? "" : (await res.text()).slice(0, 300)}`.trim()));
    expect(said.sort()).toEqual([...Array<string>(10).fill("401"), ...Array<string>(30).fill("429")]);
    for (const baseUrl of [api.baseUrl, replicaUrl]) expect((await attempt(baseUrl, "the right one")).status).toBe(429);
  });
});
