import { setTimeout } from "node:timers/promises";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { OVERVIEW_HOURS } from "@vigil/domain";
import { MonitorService, MonitorStatus, Periodicity, Region, type ListMonitorOverviewsResponse } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { OVERVIEW_ANSWER_MS } from "../src/results/overview";
import { storeResults } from "../src/results/store";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { checkResult } from "./support/results";
import { eventually } from "../../../test/eventually";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const minuteNow = () => Math.floor(Date.now() / MINUTE);

/** `work` again until it started and ended in one minute: the overview answers in full once a minute. */
async function withinOneMinute<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    const minute = minuteNow();
    const result = await work();
    if (minuteNow() === minute) return result;
  }
}
const AMS = Region.HOSTA_AMS;
const FRA = Region.HOSTB_FRA;

describe.each(BACKENDS)("ListMonitorOverviews on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof MonitorService>;
  let readClient: Client<typeof MonitorService>;
  const store = (results: ResultMessage[]) => storeResults(api.db.prisma, results, STATUS_RULES);

  beforeAll(async () => {
    api = await startTestApi(backend);
  });
  // A workspace of its own for each test: the tests count its monitors.
  beforeEach(async () => {
    const { write, read } = await api.workspace();
    client = api.client(write.key);
    readClient = api.client(read.key);
  });
  afterAll(() => api.close());

  it("answers a page in ListMonitors' order with each monitor's regions, last latency, hourly sparkline and uptimes", async () => {
    const http = (await client.createHTTPMonitor({
      monitor: { name: "web", url: "https://probe:url-secret@example.com/health", periodicity: Periodicity.PERIODICITY_5M, regions: [AMS, FRA], active: true },
    })).monitor!;
    const tcp = (await client.createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_1M, regions: [AMS], active: false } })).monitor!;
    const twoHoursAgo = ago(2 * HOUR);
    await store([
      // Three days ago: counts in the week, not in the day.
      checkResult(http.id, "hostA-ams", ago(3 * DAY), "error"),
      ...[100, 200, 300].map((latencyMs) => checkResult(http.id, "hostA-ams", twoHoursAgo, "success", { latencyMs })),
      checkResult(http.id, "hostB-fra", twoHoursAgo, "error"),
      checkResult(http.id, "hostA-ams", ago(MINUTE), "success", { latencyMs: 42 }),
      checkResult(http.id, "hostB-fra", ago(2 * MINUTE), "error", { latencyMs: 9_000 }),
    ]);

    const answer = await readClient.listMonitorOverviews({});
    expect(answer.totalSize).toBe(2);
    expect(answer.unchanged).toBe(false);
    expect(answer.monitors.map((m) => m.id)).toEqual([http.id, tcp.id]);
    const [web, db] = answer.monitors;
    expect(web).toMatchObject({
      name: "web",
      kind: "http",
      active: true,
      periodicity: Periodicity.PERIODICITY_5M,
      status: MonitorStatus.ERROR,
      regions: [
        { region: AMS, status: MonitorStatus.ACTIVE },
        { region: FRA, status: MonitorStatus.ERROR },
      ],
      lastLatencyMs: 42,
    });
    // A read key sees credentials in the URL redacted, as ListMonitors shows them.
    expect(web!.target).not.toContain("url-secret");
    expect(web!.target).toContain("@example.com/health");
    expect((await client.listMonitorOverviews({})).monitors[0]!.target).toBe("https://probe:url-secret@example.com/health");
    expect(web!.hours).toHaveLength(OVERVIEW_HOURS);
    const starts = web!.hours.map((h) => timestampDate(h.start!).getTime());
    expect(starts.every((start, i) => i === 0 || start - starts[i - 1]! === HOUR)).toBe(true);
    expect(starts.at(-1)).toBe(Math.floor(Date.now() / HOUR) * HOUR);
    const hourOf = (time: string) => web!.hours.find((h) => timestampDate(h.start!).getTime() === Math.floor(Date.parse(time) / HOUR) * HOUR)!;
    expect(hourOf(twoHoursAgo)).toMatchObject({ count: 4, failed: 1 });
    // The median of the answered checks, from the latency buckets (within their error).
    expect(Math.abs(hourOf(twoHoursAgo).p50 - 200)).toBeLessThanOrEqual(10);
    expect(web!.uptime1d).toBeCloseTo((100 * 4) / 6);
    expect(web!.uptime7d).toBeCloseTo((100 * 4) / 7);

    expect(db).toMatchObject({ name: "db", kind: "tcp", target: "db.example.com:5432", active: false, status: MonitorStatus.UNKNOWN, regions: [{ region: AMS, status: MonitorStatus.UNKNOWN }] });
    expect(db!.lastLatencyMs).toBeUndefined();
    expect(db!.lastCheckedAt).toBeUndefined();
    expect(db!.uptime1d).toBeUndefined();
    expect(db!.hours.every((h) => h.count === 0 && h.p50 === 0)).toBe(true);

    const second = await readClient.listMonitorOverviews({ limit: 1, offset: 1 });
    expect([second.totalSize, second.monitors.map((m) => m.id)]).toEqual([2, [tcp.id]]);
    // Another workspace sees none of them.
    expect((await api.client((await api.workspace()).read.key).listMonitorOverviews({})).totalSize).toBe(0);
  });

  it("answers unchanged to the current token, only the monitors a result or a change moved, and the page once monitors came or went", async () => {
    // Neither changed nor checked below.
    const quiet = (await client.createDNSMonitor({ monitor: { name: "quiet", uri: "example.com", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
    const id = (await client.createHTTPMonitor({ monitor: { name: "web", url: "https://example.com", periodicity: Periodicity.PERIODICITY_5M, regions: [AMS] } })).monitor!.id;
    // (The token moves with the minute too: staleness comes with time alone.)
    const [first, again] = await withinOneMinute(async () => {
      const answer = await readClient.listMonitorOverviews({});
      return [answer, await readClient.listMonitorOverviews({ changedSince: answer.changeToken })] as const;
    });
    expect(first.changeToken).not.toBe("");
    expect(again).toMatchObject({ unchanged: true, monitors: [], changeToken: first.changeToken });

    const other = (await client.createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
    /** The answer to the token of before `change` once it shows what `check` expects (answers are shared for OVERVIEW_ANSWER_MS). */
    const moved = async (change: () => Promise<unknown>, check: (after: ListMonitorOverviewsResponse) => void, limit?: number) => {
      // Past the answers shared so far: the token of now.
      await setTimeout(OVERVIEW_ANSWER_MS + 1);
      const before = (await readClient.listMonitorOverviews({ limit })).changeToken;
      await change();
      return eventually(async () => {
        const after = await readClient.listMonitorOverviews({ limit, changedSince: before });
        expect(after.unchanged).toBe(false);
        expect(after.changeToken).not.toBe(before);
        check(after);
        return after;
      });
    };
    // A result or a change: only the monitors it moved (and those changed or checked last before, at the times the token holds).
    await withinOneMinute(() =>
      moved(
        () => store([checkResult(id, "hostA-ams", ago(1_000), "error")]),
        (after) => {
          expect(after).toMatchObject({ changesOnly: true, totalSize: 3 });
          expect(after.monitors.map((m) => m.id)).not.toContain(quiet);
          expect(after.monitors.find((m) => m.id === id)?.status).toBe(MonitorStatus.ERROR);
        },
      ),
    );
    await withinOneMinute(() =>
      moved(
        () => client.updateTCPMonitor({ id: other, monitor: { name: "renamed" } }),
        (after) => {
          expect(after.changesOnly).toBe(true);
          expect(after.monitors.map((m) => m.name)).toContain("renamed");
          expect(after.monitors.map((m) => m.id)).not.toContain(quiet);
        },
      ),
    );
    // One monitor fewer: the whole page.
    await moved(
      () => client.deleteMonitor({ id: other }),
      (after) => expect([after.changesOnly, after.totalSize, after.monitors.map((m) => m.id)]).toEqual([false, 2, [quiet, id]]),
    );
    // More changed than a page holds: the page.
    const more: string[] = [];
    for (const name of ["a", "b"]) more.push((await client.createHTTPMonitor({ monitor: { name, url: "https://example.com", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id);
    await withinOneMinute(() =>
      moved(
        () => store([id, ...more].map((monitorId) => checkResult(monitorId, "hostA-ams", ago(500)))),
        (after) => expect([after.changesOnly, after.monitors.map((m) => m.id)]).toEqual([false, [quiet, id]]),
        2,
      ),
    );
    // A token of another shape is simply not the current one.
    expect((await readClient.listMonitorOverviews({ changedSince: "anything" })).monitors).toHaveLength(4);
  });

  it("answers only the monitors a result moved when more monitors than a page were written at the very same time", async () => {
    const ids: string[] = [];
    for (const name of ["a", "b", "c"]) ids.push((await client.createHTTPMonitor({ monitor: { name, url: "https://example.com", periodicity: Periodicity.PERIODICITY_5M, regions: [AMS] } })).monitor!.id);
    // As monitors written in one transaction (an import) are: one updated_at for all, the newest.
    await api.db.prisma.$executeRaw`UPDATE monitors SET updated_at = ${new Date(Date.now() - 1_000)} WHERE id = ANY(${ids}::text[])`;
    await withinOneMinute(async () => {
      await setTimeout(OVERVIEW_ANSWER_MS + 1);
      const before = (await readClient.listMonitorOverviews({ limit: 2 })).changeToken;
      await store([checkResult(ids[1]!, "hostA-ams", ago(500), "error")]);
      await eventually(async () => {
        const after = await readClient.listMonitorOverviews({ limit: 2, changedSince: before });
        expect([after.changesOnly, after.monitors.map((m) => m.id)]).toEqual([true, [ids[1]]]);
      });
    });
  });

  it.each<[string, { limit?: number; offset?: number }, string]>([
    ["limit 0", { limit: 0 }, "limit: must be an integer from 1 to 100"],
    ["limit 101", { limit: 101 }, "limit: must be an integer from 1 to 100"],
    ["offset -1", { offset: -1 }, "offset: must be an integer from 0"],
  ])("refuses %s as ListMonitors does", async (_, page, message) => {
    const error = ConnectError.from(await readClient.listMonitorOverviews(page).catch((e: unknown) => e));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain(message);
  });
});
