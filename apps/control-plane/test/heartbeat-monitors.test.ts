/**
 * Heartbeat (push) monitors through the public RPC API: create, get, list, update (with and without a mask), delete,
 * and the field rules, on both database backends.
 */
import { Code } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import { codeOf, expectRefused, rejection } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

const PING_URL = /^https:\/\/vigil\.test\/v1\/ping\/[A-Za-z0-9_-]{32}$/;

describe.each(BACKENDS)("heartbeat monitors (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  const write = () => api.client(ws.write.key);

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  test("a create fills in the defaults and answers a secret ping URL under PUBLIC_URL", async () => {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "nightly backup" } });
    expect(monitor).toMatchObject({
      name: "nightly backup",
      periodSeconds: 86_400n,
      cron: "",
      timezone: "UTC",
      graceSeconds: 3_600n,
      description: "",
      active: false,
      public: false,
      externalId: "",
    });
    expect(monitor!.pingUrl).toMatch(PING_URL);
    const other = await write().createHeartbeatMonitor({ monitor: { name: "another" } });
    expect(other.monitor!.pingUrl).not.toBe(monitor!.pingUrl);
  });

  test("GetMonitor answers the config case heartbeat, and ListMonitors lists heartbeatMonitors beside the others", async () => {
    const own = await api.workspace();
    const client = api.client(own.write.key);
    const { monitor } = await client.createHeartbeatMonitor({
      monitor: { name: "cron job", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600n, description: "at three", active: true, externalId: "jobs/cron" },
    });
    await client.createHTTPMonitor({ monitor: { name: "site", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    const got = await client.getMonitor({ id: monitor!.id });
    expect(got.monitor!.config.case).toBe("heartbeat");
    expect(got.monitor!.config.value).toEqual(monitor);
    expect(monitor!.periodSeconds).toBeUndefined();
    expect(monitor).toMatchObject({ cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600n, active: true, externalId: "jobs/cron" });
    const listed = await client.listMonitors({});
    expect(listed.totalSize).toBe(2);
    expect(listed.heartbeatMonitors).toEqual([monitor]);
    expect(listed.httpMonitors.map((m) => m.name)).toEqual(["site"]);
    const overviews = await client.listMonitorOverviews({});
    expect(overviews.monitors.map((m) => [m.name, m.kind, m.target])).toEqual([
      ["cron job", "heartbeat", ""],
      ["site", "http", "https://example.com"],
    ]);
  });

  test("a read key sees no ping URL: the token lets anyone report runs of the job", async () => {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "hidden" } });
    const read = api.client(ws.read.key);
    const got = await read.getMonitor({ id: monitor!.id });
    expect(got.monitor!.config.value).toMatchObject({ id: monitor!.id, pingUrl: "" });
    const listed = await read.listMonitors({ limit: 100 });
    expect(listed.heartbeatMonitors.find((m) => m.id === monitor!.id)!.pingUrl).toBe("");
  });

  test("a partial update changes the fields it carries and keeps the ping URL; naming one schedule replaces the other", async () => {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "job", periodSeconds: 300n, graceSeconds: 60n } });
    const renamed = await write().updateHeartbeatMonitor({ id: monitor!.id, monitor: { name: "renamed", active: true } });
    expect(renamed.monitor).toMatchObject({ name: "renamed", active: true, periodSeconds: 300n, graceSeconds: 60n, pingUrl: monitor!.pingUrl });
    const toCron = await write().updateHeartbeatMonitor({ id: monitor!.id, monitor: { cron: "*/5 * * * *" } });
    expect(toCron.monitor).toMatchObject({ cron: "*/5 * * * *", timezone: "UTC" });
    expect(toCron.monitor!.periodSeconds).toBeUndefined();
    const toPeriod = await write().updateHeartbeatMonitor({ id: monitor!.id, monitor: { periodSeconds: 120n } });
    expect(toPeriod.monitor).toMatchObject({ cron: "", periodSeconds: 120n });
    // A mask naming a field that is not sent returns it to its default.
    const masked = await write().updateHeartbeatMonitor({ id: monitor!.id, monitor: {}, updateMask: { paths: ["grace_seconds", "periodSeconds"] } });
    expect(masked.monitor).toMatchObject({ graceSeconds: 3_600n, periodSeconds: 86_400n, name: "renamed" });
    expect((await write().getMonitor({ id: monitor!.id })).monitor!.config.value).toEqual(masked.monitor);
  });

  test("an update of another kind's method is refused naming the heartbeat method, and the reverse too", async () => {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "job" } });
    const error = await rejection(write().updateHTTPMonitor({ id: monitor!.id, monitor: { name: "x" } }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain("id: names a Heartbeat monitor; update it with UpdateHeartbeatMonitor");
    const http = await write().createHTTPMonitor({ monitor: { name: "site", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    const back = await rejection(write().updateHeartbeatMonitor({ id: http.monitor!.id, monitor: { name: "x" } }));
    expect(back.rawMessage).toContain("id: names a HTTP monitor; update it with UpdateHTTPMonitor");
  });

  test("TriggerMonitor refuses a heartbeat, which no agent checks; DeleteMonitor deletes it", async () => {
    const { monitor } = await write().createHeartbeatMonitor({ monitor: { name: "job", active: true } });
    expect(await codeOf(write().triggerMonitor({ id: monitor!.id }))).toBe(Code.FailedPrecondition);
    expect(await write().deleteMonitor({ id: monitor!.id })).toMatchObject({ success: true });
    expect(await codeOf(write().getMonitor({ id: monitor!.id }))).toBe(Code.NotFound);
  });

  test("a read key cannot create or update one", async () => {
    expect(await codeOf(api.client(ws.read.key).createHeartbeatMonitor({ monitor: { name: "job" } }))).toBe(Code.PermissionDenied);
  });
});

describe("heartbeat monitor field rules", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  const count = async () => (await api.client(ws.write.key).listMonitors({ limit: 100 })).totalSize;

  test.each([
    [{ name: "" }, "monitor.name", "must not be empty"],
    [{ name: "job", periodSeconds: 29n }, "monitor.periodSeconds", "must be an integer from 30 to 2678400"],
    [{ name: "job", periodSeconds: 2_678_401n }, "monitor.periodSeconds", "must be an integer from 30 to 2678400"],
    [{ name: "job", graceSeconds: -1n }, "monitor.graceSeconds", "must be an integer from 0 to 2678400"],
    [{ name: "job", cron: "not a cron" }, "monitor.cron", "must be a cron expression of 5 or 6 fields"],
    [{ name: "job", cron: "61 * * * *" }, "monitor.cron", "must be a cron expression of 5 or 6 fields"],
    [{ name: "job", cron: "0 3 * * *", periodSeconds: 60n }, "monitor.cron", "must be empty when periodSeconds is given"],
    [{ name: "job", cron: "0 3 * * *", timezone: "Mars/Olympus" }, "monitor.timezone", "must be an IANA time zone"],
    [{ name: "job", description: "a\u0000b" }, "monitor.description", "must not contain"],
    [{ name: "job", externalId: "-bad" }, "monitor.externalId", "must"],
  ])("%j is refused on %s", async (monitor, field, rule) => {
    await expectRefused(count, () => api.client(ws.write.key).createHeartbeatMonitor({ monitor }), Code.InvalidArgument, `${field}: ${rule}`);
  });

  test("an update is checked on the merged configuration and writes nothing when refused", async () => {
    const client = api.client(ws.write.key);
    const { monitor } = await client.createHeartbeatMonitor({ monitor: { name: "job", cron: "0 3 * * *" } });
    const stored = async () => (await client.getMonitor({ id: monitor!.id })).monitor;
    await expectRefused(stored, () => client.updateHeartbeatMonitor({ id: monitor!.id, monitor: { timezone: "Nowhere/Else" } }), Code.InvalidArgument, "monitor.timezone");
    await expectRefused(stored, () => client.updateHeartbeatMonitor({ id: monitor!.id, monitor: {}, updateMask: { paths: ["regions"] } }), Code.InvalidArgument, "updateMask: names regions");
  });

  test("a create without a monitor is refused naming it", async () => {
    const error = await rejection(api.client(ws.write.key).createHeartbeatMonitor({}));
    expect(error.rawMessage).toContain("monitor: is required");
  });
});
