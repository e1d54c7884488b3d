import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  HTTPMethod,
  JsonComparator,
  MonitorService,
  MonitorStatus,
  NumberComparator,
  Periodicity,
  RecordComparator,
  Region,
  StringComparator,
  TimeRange,
} from "@vigil/proto";
import { codeOf } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";

const periodicity = Periodicity.PERIODICITY_5M;
const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });

describe.each(BACKENDS)("monitors on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof MonitorService>;

  beforeAll(async () => {
    api = await startTestApi(backend);
    client = api.client((await api.workspace()).write.key);
  });
  afterAll(() => api.close());

  describe("create", () => {
    it("returns the stored HTTP monitor with id, status and every default applied", async () => {
      const { monitor } = await client.createHTTPMonitor({ monitor: { name: "api", url: "https://example.com/health", periodicity } });
      expect(monitor).toMatchObject({
        name: "api",
        url: "https://example.com/health",
        periodicity,
        method: HTTPMethod.HTTP_METHOD_GET,
        body: "",
        headers: [],
        timeout: 45000n,
        retry: 3n,
        followRedirects: true,
        traceHeader: true,
        certificateExpiryDays: 14n,
        regions: [],
        active: false,
        public: false,
        degradedAt: 22500n,
        description: "",
        statusCodeAssertions: [],
        bodyAssertions: [],
        headerAssertions: [],
        jsonBodyAssertions: [],
        status: MonitorStatus.UNKNOWN,
      });
      expect(monitor!.id).toMatch(/\S/);
      expect(monitor!.createdAt).toBeDefined();
      expect(monitor!.openTelemetry).toBeUndefined();
    });

    it("keeps zero values that differ from the defaults", async () => {
      const { monitor } = await client.createHTTPMonitor({
        monitor: { name: "z", url: "http://127.0.0.1:1/", periodicity, timeout: 0n, retry: 0n, followRedirects: false, traceHeader: false },
      });
      expect(monitor).toMatchObject({ timeout: 0n, retry: 0n, followRedirects: false, traceHeader: false, degradedAt: 60000n });
    });

    it("computes degradedAt from the timeout and keeps one that is given", async () => {
      const computed = await client.createTCPMonitor({ monitor: { name: "t", uri: "db.internal:5432", periodicity, timeout: 10000n } });
      expect(computed.monitor!.degradedAt).toBe(5000n);
      const given = await client.createDNSMonitor({ monitor: { name: "d", uri: "example.com", periodicity, degradedAt: 123n } });
      expect(given.monitor!.degradedAt).toBe(123n);
    });

    it("stores every field and GetMonitor returns them in the right oneof case", async () => {
      const full = {
        name: "full",
        url: "https://example.com/api",
        periodicity: Periodicity.PERIODICITY_30S,
        method: HTTPMethod.HTTP_METHOD_POST,
        body: '{"ping":true}',
        headers: [{ key: "Authorization", value: "Bearer x" }],
        timeout: 1000n,
        retry: 2n,
        followRedirects: false,
        traceHeader: false,
        regions: [Region.HOSTA_AMS, Region.HOSTC_US_EAST4],
        active: true,
        public: true,
        degradedAt: 400n,
        description: "the API",
        statusCodeAssertions: [{ target: 200n, comparator: NumberComparator.EQUAL }],
        bodyAssertions: [{ target: "ok", comparator: StringComparator.CONTAINS }],
        headerAssertions: [{ key: "content-type", target: "json", comparator: StringComparator.CONTAINS }],
        jsonBodyAssertions: [
          { path: "$.status", comparator: JsonComparator.EQUAL, target: "ok" },
          { path: "$..error", comparator: JsonComparator.NOT_EXISTS, target: "" },
        ],
        openTelemetry: { endpoint: "http://127.0.0.1:4318/v1/metrics", headers: [{ key: "x-tenant", value: "a" }] },
      };
      const { monitor } = await client.createHTTPMonitor({ monitor: full });
      const got = await client.getMonitor({ id: monitor!.id });
      expect(got.monitor!.config.case).toBe("http");
      expect(got.monitor!.config.value).toMatchObject(full);

      const dns = await client.createDNSMonitor({
        monitor: { name: "dns", uri: "example.com", periodicity, recordAssertions: [{ record: "A", target: "93.184.215.14", comparator: RecordComparator.EQUAL }] },
      });
      const gotDns = await client.getMonitor({ id: dns.monitor!.id });
      expect(gotDns.monitor!.config.case).toBe("dns");
      expect(gotDns.monitor!.config.value).toMatchObject({ uri: "example.com", recordAssertions: [{ record: "A", target: "93.184.215.14" }] });

      const tcp = await client.createTCPMonitor({ monitor: { name: "tcp", uri: "[::1]:8080", periodicity } });
      expect((await client.getMonitor({ id: tcp.monitor!.id })).monitor!.config).toMatchObject({ case: "tcp", value: { uri: "[::1]:8080" } });
    });
  });

  describe("update", () => {
    const newMonitor = () =>
      client
        .createHTTPMonitor({
          monitor: {
            name: "before",
            url: "https://example.com",
            periodicity,
            active: true,
            retry: 5n,
            description: "desc",
            headers: [{ key: "a", value: "1" }],
            regions: [Region.HOSTA_AMS],
            statusCodeAssertions: [{ target: 200n, comparator: NumberComparator.EQUAL }],
          },
        })
        .then((r) => r.monitor!);

    it("changes only the fields it is sent", async () => {
      const before = await newMonitor();
      const { monitor } = await client.updateHTTPMonitor({ id: before.id, monitor: { name: "after" } });
      expect(monitor).toMatchObject({ ...before, name: "after", updatedAt: expect.anything() });
      expect(await client.getMonitor({ id: before.id })).toMatchObject({ monitor: { config: { value: { name: "after", retry: 5n } } } });
    });

    it("applies zero values that are sent", async () => {
      const before = await newMonitor();
      const { monitor } = await client.updateHTTPMonitor({ id: before.id, monitor: { active: false, retry: 0n, description: "" } });
      expect(monitor).toMatchObject({ active: false, retry: 0n, description: "", name: "before" });
    });

    it("turns traceHeader off and, named in update_mask without a value, back to its default (on)", async () => {
      const before = await newMonitor();
      expect(before.traceHeader).toBe(true);
      const off = await client.updateHTTPMonitor({ id: before.id, monitor: { traceHeader: false } });
      expect(off.monitor).toMatchObject({ traceHeader: false, name: "before", retry: 5n });
      expect((await client.getMonitor({ id: before.id })).monitor!.config.value).toMatchObject({ traceHeader: false });
      const reset = await client.updateHTTPMonitor({ id: before.id, monitor: {}, updateMask: mask("trace_header") });
      expect(reset.monitor).toMatchObject({ traceHeader: true, name: "before" });
    });

    it("sets certificateExpiryDays and, named in update_mask without a value, puts back its default (14)", async () => {
      const before = await newMonitor();
      const off = await client.updateHTTPMonitor({ id: before.id, monitor: { certificateExpiryDays: 0n } });
      expect(off.monitor).toMatchObject({ certificateExpiryDays: 0n, name: "before", retry: 5n });
      const thirty = await client.updateHTTPMonitor({ id: before.id, monitor: { certificateExpiryDays: 30n } });
      expect((await client.getMonitor({ id: before.id })).monitor!.config.value).toMatchObject({ certificateExpiryDays: 30n });
      expect(thirty.monitor!.traceHeader).toBe(true);
      const reset = await client.updateHTTPMonitor({ id: before.id, monitor: {}, updateMask: mask("certificate_expiry_days") });
      expect(reset.monitor).toMatchObject({ certificateExpiryDays: 14n, name: "before" });
    });

    it("replaces a list that is sent and keeps the others", async () => {
      const before = await newMonitor();
      const { monitor } = await client.updateHTTPMonitor({
        id: before.id,
        monitor: { regions: [Region.HOSTB_FRA, Region.HOSTB_PAR] },
      });
      expect(monitor!.regions).toEqual([Region.HOSTB_FRA, Region.HOSTB_PAR]);
      expect(monitor!.headers).toEqual(before.headers);
      expect(monitor!.statusCodeAssertions).toEqual(before.statusCodeAssertions);
    });

    it("clears a list named in update_mask and sent empty, and resets a named absent field to its default", async () => {
      const before = await newMonitor();
      const { monitor } = await client.updateHTTPMonitor({
        id: before.id,
        monitor: {},
        updateMask: mask("regions", "status_code_assertions", "retry"),
      });
      expect(monitor).toMatchObject({ regions: [], statusCodeAssertions: [], retry: 3n, headers: before.headers, name: "before" });
    });

    it("sets, replaces, keeps and clears JSON body assertions, and lists them", async () => {
      const before = await newMonitor();
      expect(before.jsonBodyAssertions).toEqual([]);
      const status = { path: "$.status", comparator: JsonComparator.EQUAL, target: "ok" };
      const healthy = { path: "$.services[*].healthy", comparator: JsonComparator.EQUAL, target: "true" };
      const set = await client.updateHTTPMonitor({ id: before.id, monitor: { jsonBodyAssertions: [status, healthy] } });
      expect(set.monitor!.jsonBodyAssertions).toMatchObject([status, healthy]);
      expect(set.monitor!.statusCodeAssertions).toEqual(before.statusCodeAssertions);

      const kept = await client.updateHTTPMonitor({ id: before.id, monitor: { name: "renamed" } });
      expect(kept.monitor!.jsonBodyAssertions).toMatchObject([status, healthy]);
      const masked = await client.updateHTTPMonitor({ id: before.id, monitor: { jsonBodyAssertions: [healthy], name: "ignored" }, updateMask: mask("json_body_assertions") });
      expect(masked.monitor).toMatchObject({ name: "renamed", jsonBodyAssertions: [healthy] });
      const listed = await client.listMonitors({});
      expect(listed.httpMonitors.find((m) => m.id === before.id)!.jsonBodyAssertions).toMatchObject([healthy]);

      const cleared = await client.updateHTTPMonitor({ id: before.id, monitor: {}, updateMask: mask("jsonBodyAssertions") });
      expect(cleared.monitor).toMatchObject({ jsonBodyAssertions: [], statusCodeAssertions: before.statusCodeAssertions });
      expect((await client.getMonitor({ id: before.id })).monitor!.config.value).toMatchObject({ jsonBodyAssertions: [] });
    });

    it("accepts JSON field names in update_mask over the Connect JSON protocol", async () => {
      const before = await newMonitor();
      const res = await api.fetch("/monitor.v1.MonitorService/UpdateHTTPMonitor", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": (await api.workspace()).write.key },
        body: JSON.stringify({ id: before.id, monitor: {}, updateMask: "headers" }),
      });
      // Another workspace's key: the monitor is not found there.
      expect(res.status).toBe(404);
      const mine = await client.updateHTTPMonitor({ id: before.id, updateMask: mask("headers") });
      expect(mine.monitor!.headers).toEqual([]);
    });

    it("rejects an update_mask naming an unknown or read-only field", async () => {
      const before = await newMonitor();
      for (const path of ["status", "id", "uri", "bogus"]) {
        const error = await client.updateHTTPMonitor({ id: before.id, updateMask: mask(path) }).catch(ConnectError.from);
        expect(error).toBeInstanceOf(ConnectError);
        expect((error as ConnectError).code).toBe(Code.InvalidArgument);
        expect((error as ConnectError).rawMessage).toContain(`updateMask: names ${path}`);
      }
    });

    it("keeps a stored degradedAt when the timeout changes", async () => {
      const before = await newMonitor();
      const { monitor } = await client.updateHTTPMonitor({ id: before.id, monitor: { timeout: 2000n } });
      expect(monitor).toMatchObject({ timeout: 2000n, degradedAt: before.degradedAt });
    });

    it("recomputes degradedAt, or removes openTelemetry, when the mask names them without a value", async () => {
      const { monitor: created } = await client.createTCPMonitor({
        monitor: { name: "o", uri: "example.com:1", periodicity, degradedAt: 10n, openTelemetry: { endpoint: "http://127.0.0.1:4318/v1/metrics" } },
      });
      const { monitor } = await client.updateTCPMonitor({
        id: created!.id,
        monitor: { timeout: 8000n },
        updateMask: mask("timeout", "degraded_at", "openTelemetry"),
      });
      expect(monitor).toMatchObject({ timeout: 8000n, degradedAt: 4000n });
      expect(monitor!.openTelemetry).toBeUndefined();
    });

    it("rejects updating a monitor through another kind's method", async () => {
      const http = await newMonitor();
      const error = ConnectError.from(await client.updateTCPMonitor({ id: http.id, monitor: { name: "x" } }).catch((e) => e));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toBe("id: names a HTTP monitor; update it with UpdateHTTPMonitor");
      expect(await codeOf(client.updateDNSMonitor({ id: http.id, monitor: { name: "x" } }))).toBe(Code.InvalidArgument);
      expect((await client.getMonitor({ id: http.id })).monitor!.config.value!.name).toBe("before");
    });

    it("answers not_found for an unknown id and invalid_argument for an empty one", async () => {
      expect(await codeOf(client.updateHTTPMonitor({ id: "nope", monitor: { name: "x" } }))).toBe(Code.NotFound);
      expect(await codeOf(client.updateHTTPMonitor({ id: "", monitor: { name: "x" } }))).toBe(Code.InvalidArgument);
    });
  });

  describe("list, get and delete", () => {
    it("pages in creation order, grouped by kind, with the workspace total", async () => {
      const own = api.client((await api.workspace()).write.key);
      const created: string[] = [];
      for (let i = 0; i < 7; i++) {
        const monitor = { name: `m${i}`, periodicity };
        const kind = i % 3;
        const res =
          kind === 0
            ? await own.createHTTPMonitor({ monitor: { ...monitor, url: "https://example.com" } })
            : kind === 1
              ? await own.createTCPMonitor({ monitor: { ...monitor, uri: "example.com:80" } })
              : await own.createDNSMonitor({ monitor: { ...monitor, uri: "example.com" } });
        created.push(res.monitor!.id);
      }
      const ids = (page: Awaited<ReturnType<typeof own.listMonitors>>) =>
        [...page.httpMonitors, ...page.tcpMonitors, ...page.dnsMonitors].map((m) => m.id);

      const all = await own.listMonitors({});
      expect(all.totalSize).toBe(7);
      expect(all.httpMonitors.map((m) => m.name)).toEqual(["m0", "m3", "m6"]);
      expect(all.tcpMonitors.map((m) => m.name)).toEqual(["m1", "m4"]);
      expect(all.dnsMonitors.map((m) => m.name)).toEqual(["m2", "m5"]);

      const seen: string[] = [];
      for (let offset = 0; offset < 7; offset += 3) {
        const page = await own.listMonitors({ limit: 3, offset });
        expect(page.totalSize).toBe(7);
        seen.push(...ids(page).sort((a, b) => created.indexOf(a) - created.indexOf(b)));
      }
      expect(seen).toEqual(created);
      expect(ids(await own.listMonitors({ limit: 2, offset: 2 })).sort()).toEqual(created.slice(2, 4).sort());
      expect(ids(await own.listMonitors({ offset: 50 }))).toEqual([]);
    });

    it("defaults the page size to 50", async () => {
      const own = api.client((await api.workspace()).write.key);
      for (let i = 0; i < 51; i++) await own.createTCPMonitor({ monitor: { name: `n${i}`, uri: "example.com:1", periodicity } });
      const page = await own.listMonitors({});
      expect(page.tcpMonitors).toHaveLength(50);
      expect(page.totalSize).toBe(51);
    });

    it("deletes a monitor, after which it is not found", async () => {
      const { monitor } = await client.createTCPMonitor({ monitor: { name: "gone", uri: "example.com:1", periodicity } });
      expect(await client.deleteMonitor({ id: monitor!.id })).toMatchObject({ success: true });
      expect(await codeOf(client.getMonitor({ id: monitor!.id }))).toBe(Code.NotFound);
      expect(await codeOf(client.deleteMonitor({ id: monitor!.id }))).toBe(Code.NotFound);
    });
  });

  describe("status, summary and trigger before any result", () => {
    it("reports every configured region as unknown, or the default region when none is configured", async () => {
      const { monitor } = await client.createTCPMonitor({
        monitor: { name: "s", uri: "example.com:1", periodicity, regions: [Region.HOSTB_FRA, Region.HOSTA_AMS] },
      });
      expect(await client.getMonitorStatus({ id: monitor!.id })).toMatchObject({
        id: monitor!.id,
        regions: [
          { region: Region.HOSTB_FRA, status: MonitorStatus.UNKNOWN },
          { region: Region.HOSTA_AMS, status: MonitorStatus.UNKNOWN },
        ],
      });
      const { monitor: plain } = await client.createTCPMonitor({ monitor: { name: "d", uri: "example.com:1", periodicity } });
      expect((await client.getMonitorStatus({ id: plain!.id })).regions).toEqual([
        expect.objectContaining({ region: Region.HOSTA_AMS, status: MonitorStatus.UNKNOWN }),
      ]);
    });

    it("summarises nothing yet, and requires a time range and known regions", async () => {
      const { monitor } = await client.createTCPMonitor({ monitor: { name: "m", uri: "example.com:1", periodicity } });
      const summary = await client.getMonitorSummary({ id: monitor!.id, timeRange: TimeRange.TIME_RANGE_7D });
      expect(summary).toMatchObject({ id: monitor!.id, totalSuccessful: 0n, totalFailed: 0n, p50: 0n, p99: 0n, timeRange: TimeRange.TIME_RANGE_7D });
      expect(summary.lastPingAt).toBeUndefined();
      const noRange = ConnectError.from(await client.getMonitorSummary({ id: monitor!.id }).catch((e) => e));
      expect([noRange.code, noRange.rawMessage]).toEqual([Code.InvalidArgument, "timeRange: is required"]);
      const badRegion = ConnectError.from(
        await client.getMonitorSummary({ id: monitor!.id, timeRange: TimeRange.TIME_RANGE_1D, regions: [999 as Region] }).catch((e) => e),
      );
      expect(badRegion.code).toBe(Code.InvalidArgument);
      expect(badRegion.rawMessage).toContain("regions[0]: must be one of");
    });

    it("triggers an existing monitor and answers not_found otherwise", async () => {
      const { monitor } = await client.createTCPMonitor({ monitor: { name: "t", uri: "example.com:1", periodicity } });
      expect(await client.triggerMonitor({ id: monitor!.id })).toMatchObject({ success: true });
      expect(await codeOf(client.triggerMonitor({ id: "missing" }))).toBe(Code.NotFound);
      expect(await codeOf(client.getMonitorStatus({ id: "missing" }))).toBe(Code.NotFound);
      expect(await codeOf(client.getMonitorSummary({ id: "missing", timeRange: TimeRange.TIME_RANGE_1D }))).toBe(Code.NotFound);
    });
  });
});
