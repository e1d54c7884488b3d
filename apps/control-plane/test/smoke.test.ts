import { Periodicity } from "@vigil/proto";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";

describe.each(BACKENDS)("smoke on %s", (backend) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(backend);
  });
  afterAll(() => api.close());

  it("creates and reads back a monitor", async () => {
    const ws = await api.workspace();
    const client = api.client(ws.write.key);
    const { monitor } = await client.createHTTPMonitor({ monitor: { name: "a", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    expect(monitor?.timeout).toBe(45000n);
    const got = await client.getMonitor({ id: monitor!.id });
    expect(got.monitor?.config.case).toBe("http");
  });
});
