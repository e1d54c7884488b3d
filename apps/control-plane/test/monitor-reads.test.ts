import { create, fromBinary, toBinary, toJsonString } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import pg from "pg";
import { GetMonitorRequestSchema, GetMonitorResponseSchema, ListMonitorsRequestSchema, ListMonitorsResponseSchema, MonitorService, NumberComparator, Periodicity } from "@vigil/proto";
import { BACKENDS, startTestApi, transportTo, type Replica, type TestApi } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;

describe.each(BACKENDS)("Monitor reads on %s", (backend) => {
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

  it("answers one monitor as it is now, whoever changed it, and never from another workspace", async () => {
    const { write } = await api.workspace();
    const client = api.client(write.key);
    const { monitor } = await client.createHTTPMonitor({ monitor: { name: "before", url: "https://example.com", periodicity } });
    const name = async () => {
      const { monitor: got } = await client.getMonitor({ id: monitor!.id });
      return got!.config.case === "http" ? got!.config.value.name : undefined;
    };
    expect(await name()).toBe("before");
    expect(await name()).toBe("before");
    await api.db.prisma.$executeRaw`UPDATE monitors SET name = 'elsewhere' WHERE id = ${monitor!.id}`;
    expect(await name()).toBe("elsewhere");

    const other = api.client((await api.workspace()).write.key);
    await expect(other.getMonitor({ id: monitor!.id })).rejects.toThrow(/not found|not_found/i);
    // Asked for at once from both workspaces (one statement reads the versions of both calls).
    const [own, foreign] = await Promise.allSettled([client.getMonitor({ id: monitor!.id }), other.getMonitor({ id: monitor!.id })]);
    expect(own.status === "fulfilled" && own.value.monitor?.config.value?.name).toBe("elsewhere");
    expect(foreign.status === "rejected" && String(foreign.reason)).toMatch(/not found|not_found/i);
    await client.deleteMonitor({ id: monitor!.id });
    await expect(client.getMonitor({ id: monitor!.id })).rejects.toThrow(/not found|not_found/i);
  });

  it("answers in Connect JSON byte for byte what the default serialization writes, on every read", async () => {
    const { write } = await api.workspace();
    const client = api.client(write.key);
    await client.createHTTPMonitor({
      monitor: {
        name: "with \"quotes\", ünïcode, \u2028 and 🛰",
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
    const REQUESTS = { ListMonitors: ListMonitorsRequestSchema, GetMonitor: GetMonitorRequestSchema } as const;
    const answer = (method: keyof typeof REQUESTS, format: "json" | "proto", request: object) =>
      api.fetch(`/monitor.v1.MonitorService/${method}`, {
        method: "POST",
        headers: { "content-type": `application/${format}`, "x-service-key": write.key },
        body: format === "json" ? JSON.stringify(request) : toBinary(REQUESTS[method], create(REQUESTS[method], request)),
      });
    const bothWays = async (method: "ListMonitors" | "GetMonitor", request: object = {}) => {
      const schema = method === "ListMonitors" ? ListMonitorsResponseSchema : GetMonitorResponseSchema;
      const json = await (await answer(method, "json", request)).text();
      const binary = fromBinary(schema, new Uint8Array(await (await answer(method, "proto", request)).arrayBuffer()));
      return { json, expected: toJsonString(schema, binary, { alwaysEmitImplicit: true }) };
    };
    const first = await bothWays("ListMonitors");
    expect(JSON.parse(first.json).totalSize).toBe(4);
    const empty = await bothWays("ListMonitors", { offset: 10 });
    expect(empty.json).toBe(empty.expected);
    expect(first.json).toBe(first.expected);
    // Uncompressed, its length is its UTF-8 bytes; compressed (fetch asks for gzip unless told otherwise), it is the same text.
    const encoded = (encoding: string) =>
      api.fetch("/monitor.v1.MonitorService/ListMonitors", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": write.key, "accept-encoding": encoding },
        body: "{}",
      });
    const plain = await encoded("identity");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    expect(Number(plain.headers.get("content-length"))).toBe(plainBytes.length);
    expect(plainBytes.toString("utf8")).toBe(first.json);
    const gzipped = await encoded("gzip");
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(await gzipped.text()).toBe(first.json);
    // Read again, one of them alone, then after a change to it.
    expect((await bothWays("ListMonitors")).json).toBe(first.json);
    const one = await bothWays("GetMonitor", { id: dns!.id });
    expect(JSON.parse(one.json).monitor.dns.name).toBe("dns");
    expect(one.json).toBe(one.expected);
    await client.updateDNSMonitor({ id: dns!.id, monitor: { name: "dns, renamed" } });
    for (const method of ["GetMonitor", "ListMonitors"] as const) {
      const changed = await bothWays(method, method === "GetMonitor" ? { id: dns!.id } : {});
      expect(changed.json).toBe(changed.expected);
      expect(changed.json).toContain('"dns, renamed"');
    }
  });
});

describe("Monitor reads on PostgreSQL with two control planes", () => {
  let api: TestApi;
  let other: Replica;
  /** A session of its own, as an operator's psql or another control plane's writer. */
  let elsewhere: pg.Client;
  beforeAll(async () => {
    api = await startTestApi("postgres");
    other = await api.startReplica(undefined, { ownConnections: true });
    elsewhere = new pg.Client({ connectionString: (api.db.target as { url: string }).url });
    await elsewhere.connect();
  });
  afterAll(async () => {
    await elsewhere.end();
    await other.close();
    await api.close();
  });

  it("answers on another control plane every change as soon as the write answered", async () => {
    const { write } = await api.workspace();
    const here = api.client(write.key);
    const there = createClient(MonitorService, transportTo(other.baseUrl, write.key));
    const { monitor } = await here.createHTTPMonitor({ monitor: { name: "v0", url: "https://example.com", periodicity } });
    const seen = async () => {
      const [{ monitor: one }, { httpMonitors, totalSize }] = await Promise.all([there.getMonitor({ id: monitor!.id }), there.listMonitors({})]);
      return { one: one!.config.value!.name, page: httpMonitors.map((m) => m.name), totalSize };
    };
    expect(await seen()).toEqual({ one: "v0", page: ["v0"], totalSize: 1 });
    for (let i = 1; i <= 30; i++) {
      await here.updateHTTPMonitor({ id: monitor!.id, monitor: { name: `v${i}` } });
      expect(await seen()).toEqual({ one: `v${i}`, page: [`v${i}`], totalSize: 1 });
    }
    const { monitor: added } = await here.createHTTPMonitor({ monitor: { name: "added", url: "https://example.com", periodicity } });
    expect((await seen()).page).toEqual(["v30", "added"]);
    await here.deleteMonitor({ id: monitor!.id });
    await expect(there.getMonitor({ id: monitor!.id })).rejects.toThrow(/not found|not_found/i);
    expect(await there.listMonitors({})).toEqual(expect.objectContaining({ totalSize: 1 }));
    await elsewhere.query("UPDATE monitors SET name = 'by hand' WHERE id = $1", [added!.id]);
    expect((await there.getMonitor({ id: added!.id })).monitor!.config.value!.name).toBe("by hand");
  });

});
