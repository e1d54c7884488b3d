import { create, fromBinary, toBinary, toJsonString } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import pg from "pg";
import { GetMonitorRequestSchema, GetMonitorResponseSchema, ListMonitorsRequestSchema, ListMonitorsResponseSchema, MonitorService, NumberComparator, Periodicity } from "@vigil/proto";
import { registerMonitorChanges, type MonitorChange } from "@vigil/db";
import { DEFAULTS, parseMonitorConfig } from "@vigil/domain";
import { Administration } from "../src/admin/operations";
import { MonitorRepository } from "../src/monitors/repository";
import { MAX_KEPT_RECORDS } from "../src/monitors/records-by-version";
import { BACKENDS, openTestDatabase, startTestApi, transportTo, type Replica, type TestApi } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;

describe.each(BACKENDS)("Monitors kept between calls on %s", (backend) => {
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

  it("reads one monitor again only when it changed, whoever changed it, and never from another workspace", async () => {
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
    // Uncompressed, the answer's length is its bytes; compressed (fetch asks for gzip unless told otherwise), it is
    // the same text.
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
    // Read again (each message's JSON kept), one of them alone, then after a change to it.
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


describe("Monitors kept on PGlite, which announces every change", () => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi("pglite")));
  afterAll(() => api.close());

  it("answers monitors and pages read since their last change without a statement, and reads again after a commit", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor: kept } = await client.createHTTPMonitor({ monitor: { name: "before", url: "https://example.com", periodicity } });
    const elsewhere = api.client((await api.workspace()).write.key);
    const { monitor: unread } = await elsewhere.createHTTPMonitor({ monitor: { name: "unread", url: "https://example.com", periodicity } });
    const name = async (id: string, caller = client) => {
      const { monitor: got } = await caller.getMonitor({ id });
      return got!.config.case === "http" ? got!.config.value.name : undefined;
    };
    const page = async () => {
      const { httpMonitors, totalSize } = await client.listMonitors({});
      return { names: httpMonitors.map((m) => m.name), totalSize };
    };
    expect(await name(kept!.id)).toBe("before");
    expect(await page()).toEqual({ names: ["before"], totalSize: 1 });

    // PGlite runs one statement at a time, and a statement from outside an open transaction waits for it: while
    // this one is open, only a call that asks the database nothing can answer.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let changedInside!: () => void;
    const inside = new Promise<void>((resolve) => (changedInside = resolve));
    const transaction = api.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`UPDATE monitors SET name = 'committed' WHERE id = ${kept!.id}`;
        changedInside();
        await held;
      },
      { timeout: 60_000 },
    );
    await inside;
    let unreadAnswered = false;
    const unreadName = name(unread!.id, elsewhere).finally(() => (unreadAnswered = true));
    expect(await name(kept!.id)).toBe("before");
    expect(await page()).toEqual({ names: ["before"], totalSize: 1 });
    expect(unreadAnswered).toBe(false);
    release();
    await transaction;
    expect(await unreadName).toBe("unread");

    expect(await name(kept!.id)).toBe("committed");
    expect(await page()).toEqual({ names: ["committed"], totalSize: 1 });
    await client.createHTTPMonitor({ monitor: { name: "added", url: "https://example.com", periodicity } });
    expect(await page()).toEqual({ names: ["committed", "added"], totalSize: 2 });
    await client.deleteMonitor({ id: kept!.id });
    expect(await page()).toEqual({ names: ["added"], totalSize: 1 });
    await expect(client.getMonitor({ id: kept!.id })).rejects.toThrow(/not found|not_found/i);
  });
});

describe("Monitors kept on PostgreSQL, whose changes every control plane hears", () => {
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

  it("answers monitors and pages read since their last change without reading the table", async () => {
    const { write } = await api.workspace();
    const client = api.client(write.key);
    const { monitor: kept } = await client.createHTTPMonitor({ monitor: { name: "kept", url: "https://example.com", periodicity } });
    const { monitor: unread } = await api.client((await api.workspace()).write.key).createHTTPMonitor({
      monitor: { name: "unread", url: "https://example.com", periodicity },
    });
    const read = async () => [(await client.getMonitor({ id: kept!.id })).monitor!.config.value!.name, (await client.listMonitors({})).totalSize];
    expect(await read()).toEqual(["kept", 1]);

    // While another session holds the table, any statement that reads it waits: only the fence goes by.
    await elsewhere.query("BEGIN");
    await elsewhere.query("LOCK TABLE monitors IN ACCESS EXCLUSIVE MODE");
    let unreadAnswered = false;
    const reader = api.client((await api.workspace()).write.key);
    const foreign = reader.getMonitor({ id: unread!.id }).catch((error: unknown) => error).finally(() => (unreadAnswered = true));
    try {
      expect(await read()).toEqual(["kept", 1]);
      expect(unreadAnswered).toBe(false);
    } finally {
      await elsewhere.query("ROLLBACK");
    }
    expect(String(await foreign)).toMatch(/not found|not_found/i);
  });
});

describe("Monitors kept while changes are heard meanwhile", () => {
  it("trusts a record kept by a read that heard a change once a page read finds it unchanged (as at start-up, while the feed connects)", async () => {
    const db = await openTestDatabase("postgres");
    // A feed the test speaks for, so that a change is heard exactly while the first read is out.
    const listeners: ((change: MonitorChange | null) => void)[] = [];
    registerMonitorChanges(db.prisma, { subscribe: (listener) => void listeners.push(listener), caughtUp: () => Promise.resolve(true) });
    const locker = new pg.Client({ connectionString: (db.target as { url: string }).url });
    try {
      const admin = new Administration(db.prisma);
      const workspace = await admin.createWorkspace({ name: "kept", slug: "kept" });
      const repository = new MonitorRepository(db.prisma);
      const config = parseMonitorConfig("http", { name: "kept", url: "https://example.com", periodicity: "1m", active: true });
      await repository.create(workspace.id, "http", config, null, DEFAULTS.monitorsPerWorkspace);

      // The schedule's reconciliation reads every active monitor, as a control plane does at start.
      const first = repository.listActive();
      expect(config.active).toBe(true);
      for (const listener of listeners) listener({ monitorId: "another", workspaceId: "another", membership: false });
      await first;
      expect((await repository.list(workspace.id, 100, 0)).records.map((r) => r.config.name)).toEqual(["kept"]);

      // Now the page and its record are both trusted: the next read asks the database nothing, so a lock on the table does not hold it.
      await locker.connect();
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE monitors IN ACCESS EXCLUSIVE MODE");
      const answer = await Promise.race([
        repository.list(workspace.id, 100, 0).then(({ records }) => records.map((r) => r.config.name)),
        new Promise((resolve) => setTimeout(() => resolve("waited for the table"), 2_000)),
      ]);
      await locker.query("ROLLBACK");
      expect(answer).toEqual(["kept"]);
    } finally {
      await locker.end();
      await db.dispose();
    }
  });
});

describe("Monitors kept when the feed says anything may have changed", () => {
  it("confirms each kept record by its row's version instead of reading it again, and reads again the ones that changed", async () => {
    const db = await openTestDatabase("postgres");
    const listeners: ((change: MonitorChange | null) => void)[] = [];
    let live = true;
    registerMonitorChanges(db.prisma, { subscribe: (listener) => void listeners.push(listener), caughtUp: () => Promise.resolve(live) });
    const locker = new pg.Client({ connectionString: (db.target as { url: string }).url });
    try {
      const workspace = await new Administration(db.prisma).createWorkspace({ name: "feed", slug: "feed" });
      const repository = new MonitorRepository(db.prisma);
      const create = (name: string) =>
        repository.create(workspace.id, "http", parseMonitorConfig("http", { name, url: "https://example.com", periodicity: "1m" }), null, DEFAULTS.monitorsPerWorkspace);
      const [still, edited] = [await create("still"), await create("edited")];
      const before = { still: await repository.find(workspace.id, still.id), edited: await repository.find(workspace.id, edited.id) };

      // The feed is lost; meanwhile one monitor changes unheard; then the feed is back and says anything may have changed.
      live = false;
      for (const listener of listeners) listener(null);
      await db.prisma.$executeRaw`UPDATE monitors SET name = 'edited by hand' WHERE id = ${edited.id}`;
      live = true;
      for (const listener of listeners) listener(null);

      // The unchanged one is the very record kept (its row's version matched); the changed one is read again.
      expect(await repository.find(workspace.id, still.id)).toBe(before.still);
      const after = await repository.find(workspace.id, edited.id);
      expect(after?.config.name).toBe("edited by hand");
      expect(after).not.toBe(before.edited);

      // Both are trusted again: reading them asks the database nothing, so a lock on the table does not hold them.
      await locker.connect();
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE monitors IN ACCESS EXCLUSIVE MODE");
      const answer = await Promise.race([
        Promise.all([still.id, edited.id].map(async (id) => (await repository.find(workspace.id, id))?.config.name)),
        new Promise((resolve) => setTimeout(() => resolve("waited for the table"), 2_000)),
      ]);
      await locker.query("ROLLBACK");
      expect(answer).toEqual(["still", "edited by hand"]);
    } finally {
      await locker.end();
      await db.dispose();
    }
  });
});

describe("Monitors kept past the limit of kept records", () => {
  it("answers whole pages while keeping the monitors a page read lets go of the oldest kept ones", async () => {
    const db = await openTestDatabase("postgres");
    try {
      const admin = new Administration(db.prisma);
      const [paged, others] = [await admin.createWorkspace({ name: "paged", slug: "paged" }), await admin.createWorkspace({ name: "others", slug: "others" })];
      // Named m0, m1, … in creation order.
      const add = (workspaceId: string, count: number, active: boolean) => db.prisma.$executeRaw`
        INSERT INTO monitors (id, workspace_id, kind, name, target, periodicity, timeout_ms, retry, regions, active, public, degraded_at_ms, created_at, updated_at)
        SELECT gen_random_uuid()::text, ${workspaceId}, 'http', 'm' || i, 'https://example.com', '1m', 1000, 0, '{}', ${active}, false, 1000,
               timestamp '2026-01-01' + i * interval '1 second', now()
          FROM generate_series(0, ${count - 1}::int) AS i`;
      // The page's monitors are kept first, so they are the least recently used; the reconciliation's read of every active monitor then fills the records past the limit by one.
      await add(paged.id, 100, false);
      await add(others.id, MAX_KEPT_RECORDS - 99, true);
      const repository = new MonitorRepository(db.prisma);
      expect((await repository.list(paged.id, 100, 0)).records).toHaveLength(100);
      await repository.listActive();

      // One of the page's monitors changes: the page's read keeps two records (that one, and the one let go above), which lets go of two others.
      await db.prisma.$executeRaw`UPDATE monitors SET name = 'changed' WHERE workspace_id = ${paged.id} AND name = 'm50'`;
      const { records, total } = await repository.list(paged.id, 100, 0);
      expect(total).toBe(100);
      expect(records.map((record) => record.config.name)).toEqual(Array.from({ length: 100 }, (_, i) => (i === 50 ? "changed" : `m${i}`)));
    } finally {
      await db.dispose();
    }
  }, 60_000);
});
