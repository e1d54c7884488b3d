import { fromBinary, toJsonString } from "@bufbuild/protobuf";
import { ListMonitorsResponseSchema, NumberComparator, Periodicity } from "@vigil/proto";
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

  it("answers in Connect JSON byte for byte what the default serialization writes, on every read", async () => {
    const { write } = await api.workspace();
    const client = api.client(write.key);
    await client.createHTTPMonitor({
      monitor: {
        name: "with \"quotes\", ünïcode and \u2028",
        url: "https://example.com/a?b=c",
        periodicity,
        headers: [{ key: "x-one", value: "1" }],
        statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200n }],
        description: "",
      },
    });
    await client.createHTTPMonitor({ monitor: { name: "second", url: "https://example.org", periodicity } });
    await client.createTCPMonitor({ monitor: { name: "tcp", uri: "example.com:443", periodicity } });
    const { monitor: dns } = await client.createDNSMonitor({ monitor: { name: "dns", uri: "example.com", periodicity } });
    const answer = (format: "json" | "proto") =>
      api.fetch("/monitor.v1.MonitorService/ListMonitors", {
        method: "POST",
        headers: { "content-type": `application/${format}`, "x-service-key": write.key },
        body: format === "json" ? "{}" : new Uint8Array(),
      });
    const bothWays = async () => {
      const json = await (await answer("json")).text();
      const binary = fromBinary(ListMonitorsResponseSchema, new Uint8Array(await (await answer("proto")).arrayBuffer()));
      return { json, expected: toJsonString(ListMonitorsResponseSchema, binary, { alwaysEmitImplicit: true }) };
    };
    const first = await bothWays();
    expect(JSON.parse(first.json).totalSize).toBe(4);
    expect(first.json).toBe(first.expected);
    // Read again (each message's JSON kept), then after a change to one monitor.
    expect((await bothWays()).json).toBe(first.json);
    await client.updateDNSMonitor({ id: dns!.id, monitor: { name: "dns, renamed" } });
    const changed = await bothWays();
    expect(changed.json).toBe(changed.expected);
    expect(changed.json).toContain('"dns, renamed"');
  });
});

