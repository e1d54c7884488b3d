import { Periodicity } from "@vigil/proto";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;

describe.each(BACKENDS)("ListMonitors pages kept between calls on %s", (backend) => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi(backend)));
  afterAll(() => api.close());

  it("shows every change made since the page was last read, whoever made it", async () => {
    const { write } = await api.workspace();
    const client = api.client(write.key);
    const { monitor } = await client.createHTTPMonitor({ monitor: { name: "before", url: "https://example.com", periodicity } });
    const names = async () => (await client.listMonitors({})).httpMonitors.map((m) => [m.name, m.status]);
    expect(await names()).toEqual([["before", monitor!.status]]);

    await client.updateHTTPMonitor({ id: monitor!.id, monitor: { name: "after" } });
    expect((await names())[0]![0]).toBe("after");

    // A write that bypasses the API (as the status writer's plain SQL, or another control plane's) is seen too.
    await api.db.prisma.$executeRaw`UPDATE monitors SET status = 'error', name = 'elsewhere' WHERE id = ${monitor!.id}`;
    const [name, status] = (await names())[0]!;
    expect(name).toBe("elsewhere");
    expect(status).not.toBe(monitor!.status);

    await client.deleteMonitor({ id: monitor!.id });
    expect(await client.listMonitors({})).toEqual(expect.objectContaining({ httpMonitors: [], totalSize: 0 }));
  });
});
