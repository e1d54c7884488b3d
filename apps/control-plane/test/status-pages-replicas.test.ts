import { createLogger } from "@vigil/logging";
import { startPipeline, type Pipeline } from "../src/pipeline";
import { startApiServer } from "../src/server";
import type { Listener } from "../src/http/listener";
import { startTestApi, type TestApi } from "./support/api";
import { testPipelineConfig } from "./support/control-plane";

describe("status page changes across control planes (PostgreSQL, real Redis)", () => {
  let api: TestApi;
  let replica: Pipeline;
  let replicaApi: Listener;
  let replicaUrl: string;

  beforeAll(async () => {
    api = await startTestApi("postgres");
    // A second control plane of the same deployment: the same database, the same Redis keys.
    const logger = createLogger("silent", "test");
    replica = await startPipeline(api.db.prisma, testPipelineConfig(api.redisPrefix), logger, api.notifications.setup);
    replicaApi = await startApiServer({
      prisma: api.db.prisma,
      scheduler: replica.scheduler,
      statuses: replica.statuses,
      pageChanges: replica.pageChanges,
      notifications: { settings: api.notifications.settings, secrets: api.notifications.box },
      logger,
      port: 0,
      host: "127.0.0.1",
    });
    replicaUrl = `http://127.0.0.1:${replicaApi.address().port}`;
  });
  afterAll(async () => {
    await replicaApi.close();
    await replica.stop();
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

    const heard = new Promise<string>((resolve) => replica.pageChanges.subscribe(resolve));
    await pages.unpublishStatusPage({ id: statusPage!.id });
    // Told through Redis, not left to expire: the replica answers 404 the moment it hears.
    expect(await heard).toBe(statusPage!.id);
    expect((await fetch(`${replicaUrl}/status/shared-across`)).status).toBe(404);
  });
});
