import { setTimeout } from "node:timers/promises";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { MonitorService, MonitorStatus, Periodicity, Region, type MonitorOverview, type WatchMonitorOverviewsResponse } from "@vigil/proto";
import { BACKENDS, startTestApi, transportTo, type Protocol, type TestApi } from "./support/api";
import { checkResult, publishResults } from "./support/results";
import { eventually } from "../../../test/eventually";
import { recordingLogger } from "../../../test/recording-logger";

const AMS = Region.HOSTA_AMS;

/** A WatchMonitorOverviews stream read in the background: every message kept, and how it ended. */
function watch(client: Client<typeof MonitorService>, changedSince: string) {
  const abort = new AbortController();
  const messages: WatchMonitorOverviewsResponse[] = [];
  let header: Headers | undefined;
  let ended: { error?: ConnectError } | undefined;
  void (async () => {
    try {
      for await (const message of client.watchMonitorOverviews({ changedSince }, { signal: abort.signal, onHeader: (h) => (header = h) })) messages.push(message);
      ended = {};
    } catch (error) {
      ended = { error: ConnectError.from(error) };
    }
  })();
  return {
    messages,
    header: () => header,
    /** The first message from `from` on for which `check` passes, waited for. */
    seen: (check: (message: WatchMonitorOverviewsResponse) => boolean, from = 0) =>
      eventually(() => {
        const found = messages.slice(from).find(check);
        expect(found).toBeDefined();
        return found!;
      }),
    /**
     * The first message holding an overview for which `check` passes; or, when the stream asked for a reload
     * meanwhile (the minute turned, which a test cannot rule out), undefined once the list shows one.
     */
    showing: (check: (overview: MonitorOverview) => boolean) =>
      eventually(async () => {
        const found = messages.find((m) => m.monitors.some(check));
        if (found) return found;
        expect(messages.some((m) => m.reload)).toBe(true);
        expect((await client.listMonitorOverviews({})).monitors.some(check)).toBe(true);
        return undefined;
      }),
    ended: () =>
      eventually(() => {
        expect(ended).toBeDefined();
        return ended!;
      }),
    stop: () => abort.abort(),
  };
}

const names = (message: WatchMonitorOverviewsResponse) => message.monitors.map((m) => m.name);

describe.each(BACKENDS)("WatchMonitorOverviews on %s", (backend) => {
  let api: TestApi;
  const log = recordingLogger();

  beforeAll(async () => {
    api = await startTestApi(backend, { logger: log.logger });
  });
  afterAll(() => api.close());

  /** A workspace with two monitors, their overviews read, and a watch from there, over `protocol`. */
  async function watched(protocol: Protocol = "connect") {
    const ws = await api.workspace();
    const client = api.client(ws.write.key);
    const reader = createClient(MonitorService, transportTo(api.baseUrl, ws.read.key, protocol));
    const create = async (name: string) =>
      (await client.createHTTPMonitor({ monitor: { name, url: "https://example.com", periodicity: Periodicity.PERIODICITY_5M, regions: [AMS] } })).monitor!.id;
    // web last: a monitor changed at the very time a token was made may come again (docs/api.md, "Overviews").
    const quiet = await create("api");
    const ids = { api: quiet, web: await create("web") };
    const listed = await reader.listMonitorOverviews({});
    return { ws, client, reader, ids, listed, stream: watch(reader, listed.changeToken) };
  }

  it.each<Protocol>(["connect", "grpc-web", "grpc"])("sends at once, then the monitors a stored result moved (%s)", async (protocol) => {
    const { ids, stream } = await watched(protocol);
    // At once: nothing changed since the list (or, if the minute turned meanwhile, read it again).
    const first = await stream.seen(() => true);
    expect(first.monitors).toEqual([]);
    expect(first.changeToken).not.toBe("");
    // Proxies that buffer what they pass on (nginx) are told not to.
    expect(stream.header()?.get("x-accel-buffering")).toBe("no");

    // A result as agents send it, stored by the control plane's consumer.
    await publishResults(api.redisPrefix, [checkResult(ids.web, "hostA-ams", new Date().toISOString(), "error")]);
    const moved = await stream.showing((o) => o.id === ids.web && o.status === MonitorStatus.ERROR);
    // Only what moved: the other monitor was neither checked nor changed.
    if (moved) expect(moved.monitors.map((m) => m.id)).not.toContain(ids.api);
    stream.stop();
  });

  it("sends a renamed monitor, and asks for a reload when monitors come or go", async () => {
    const { client, ids, stream } = await watched();
    await stream.seen(() => true);
    await client.updateHTTPMonitor({ id: ids.api, monitor: { name: "renamed" } });
    await stream.showing((o) => o.name === "renamed");

    const count = stream.messages.length;
    await client.deleteMonitor({ id: ids.web });
    const reload = await stream.seen((m) => m.reload, count);
    expect(reload.monitors).toEqual([]);
    stream.stop();
  });

  it("asks a caller without a token, or with one of another shape, to read the overviews", async () => {
    const ws = await api.workspace();
    for (const changedSince of ["", "not-a-token"]) {
      const stream = watch(api.client(ws.read.key), changedSince);
      expect(await stream.seen(() => true)).toMatchObject({ reload: true, monitors: [] });
      stream.stop();
    }
  });

  it("tells a watch on one control plane of a change made through another", async () => {
    const replica = await api.startReplica();
    let closed = false;
    try {
      const ws = await api.workspace();
      const id = (await api.client(ws.write.key).createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
      const there = createClient(MonitorService, transportTo(replica.baseUrl, ws.read.key));
      const stream = watch(there, (await there.listMonitorOverviews({})).changeToken);
      await stream.seen(() => true);
      // Through the first control plane; the replica's watch hears of it through Redis.
      await api.client(ws.write.key).updateTCPMonitor({ id, monitor: { name: "renamed elsewhere" } });
      await stream.showing((o) => o.name === "renamed elsewhere");

      // The replica stopping ends its watches normally, rather than cutting their connections.
      closed = true;
      await replica.close();
      expect(await stream.ended()).toEqual({});
    } finally {
      if (!closed) await replica.close();
    }
  });

  it("ends a watch with unauthenticated once its key is revoked", async () => {
    const { ws, ids, client, stream } = await watched();
    await stream.seen(() => true);
    await api.admin.revokeApiKey(ws.read.id);
    // The next message it would send is not sent.
    await client.updateHTTPMonitor({ id: ids.web, monitor: { name: "after the revocation" } });
    const { error } = await stream.ended();
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(stream.messages.flatMap(names)).not.toContain("after the revocation");
  });

  it("takes a client that leaves mid-stream as no failure: nothing on stderr, no error in the log", async () => {
    const consoleError = jest.spyOn(console, "error");
    try {
      const { client, ids, stream } = await watched();
      await stream.seen(() => true);
      stream.stop();
      // The next message finds the client gone.
      await client.updateHTTPMonitor({ id: ids.web, monitor: { name: "nobody listens" } });
      await eventually(() => expect(log.lines.filter((l) => l.message === "the client left before its answer was written" || l.message === "rpc").length).toBeGreaterThan(0));
      await setTimeout(500);
      expect(consoleError).not.toHaveBeenCalled();
      expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
    } finally {
      consoleError.mockRestore();
    }
  });

  it("sees the workspace of its key only", async () => {
    const mine = await watched();
    const other = await watched();
    await mine.stream.seen(() => true);
    await other.client.updateHTTPMonitor({ id: other.ids.web, monitor: { name: "not yours" } });
    await other.stream.showing((o) => o.name === "not yours");
    await mine.client.updateHTTPMonitor({ id: mine.ids.web, monitor: { name: "yours" } });
    await mine.stream.showing((o) => o.name === "yours");
    expect(mine.stream.messages.flatMap(names)).not.toContain("not yours");
    mine.stream.stop();
    other.stream.stop();
  });
});
