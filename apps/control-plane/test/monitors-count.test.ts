import { parseMonitorConfig } from "@vigil/domain";
import { Periodicity } from "@vigil/proto";
import { monitorColumns } from "../src/monitors/repository";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;
const httpMonitor = (name: string) => ({ monitor: { name, url: "https://example.com", periodicity } });

describe.each(BACKENDS)("the workspace's monitor count kept by the database on %s", (backend) => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi(backend)));
  afterAll(() => api.close());

  async function workspace() {
    const keys = await api.workspace();
    const { id } = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } });
    const client = api.client(keys.write.key);
    /** ListMonitors' total, the kept count and a fresh count(*), which must always agree. */
    const totals = async () => {
      const kept = await api.db.prisma.workspaceMonitorCount.findUnique({ where: { workspaceId: id } });
      return {
        listed: (await client.listMonitors({})).totalSize,
        kept: kept?.monitors ?? 0,
        counted: await api.db.prisma.monitor.count({ where: { workspaceId: id } }),
      };
    };
    return { id, client, totals };
  }
  const agreeing = (n: number) => ({ listed: n, kept: n, counted: n });
  /** Rows for createMany as the bench seeds and a bulk import would write them. */
  const rows = (workspaceId: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      workspaceId,
      kind: "http" as const,
      ...monitorColumns("http", parseMonitorConfig("http", { name: `bulk ${i}`, url: "https://example.com", periodicity: "1m" })),
    }));

  it("follows creates and deletes through the API, also concurrent ones", async () => {
    const { client, totals } = await workspace();
    expect(await totals()).toEqual(agreeing(0));
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => client.createHTTPMonitor(httpMonitor(`m${i}`))));
    expect(await totals()).toEqual(agreeing(20));
    await Promise.all(created.slice(0, 12).map(({ monitor }) => client.deleteMonitor({ id: monitor!.id })));
    expect(await totals()).toEqual(agreeing(8));
    // A delete of a monitor already gone changes nothing.
    await expect(client.deleteMonitor({ id: created[0]!.monitor!.id })).rejects.toThrow();
    expect(await totals()).toEqual(agreeing(8));
  });

  it("follows bulk statements, concurrent transactions, and a rolled-back one not at all", async () => {
    const { id, totals } = await workspace();
    await api.db.prisma.monitor.createMany({ data: rows(id, 250) });
    expect(await totals()).toEqual(agreeing(250));
    await Promise.all(
      Array.from({ length: 5 }, () =>
        api.db.prisma.$transaction(async (tx) => {
          await tx.monitor.createMany({ data: rows(id, 10) });
          await tx.monitor.create({ data: rows(id, 1)[0]! });
        }),
      ),
    );
    expect(await totals()).toEqual(agreeing(305));
    const rolledBack = api.db.prisma.$transaction(async (tx) => {
      await tx.monitor.createMany({ data: rows(id, 7) });
      await tx.monitor.deleteMany({ where: { workspaceId: id, name: "bulk 0" } });
      throw new Error("abandoned");
    });
    await expect(rolledBack).rejects.toThrow("abandoned");
    expect(await totals()).toEqual(agreeing(305));
    const { count } = await api.db.prisma.monitor.deleteMany({ where: { workspaceId: id, name: { startsWith: "bulk 1" } } });
    expect(count).toBeGreaterThan(0);
    expect(await totals()).toEqual(agreeing(305 - count));
  });

  it("goes with its workspace, and leaves other workspaces' counts alone", async () => {
    const doomed = await workspace();
    const other = await workspace();
    await api.db.prisma.monitor.createMany({ data: [...rows(doomed.id, 30), ...rows(other.id, 4)] });
    expect(await other.totals()).toEqual(agreeing(4));
    await api.db.prisma.workspace.delete({ where: { id: doomed.id } });
    expect(await api.db.prisma.workspaceMonitorCount.findUnique({ where: { workspaceId: doomed.id } })).toBeNull();
    expect(await other.totals()).toEqual(agreeing(4));
  });

  it("refuses to move a monitor to another workspace, which would make both counts wrong", async () => {
    const from = await workspace();
    const to = await workspace();
    const { monitor } = await from.client.createHTTPMonitor(httpMonitor("staying"));
    await expect(api.db.prisma.monitor.update({ where: { id: monitor!.id }, data: { workspaceId: to.id } })).rejects.toThrow();
    expect(await from.totals()).toEqual(agreeing(1));
    expect(await to.totals()).toEqual(agreeing(0));
  });

  it("pages by offset in creation order with the total of the same snapshot", async () => {
    const { client } = await workspace();
    const names = Array.from({ length: 23 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    for (const name of names) await client.createHTTPMonitor(httpMonitor(name));
    const pages = [];
    for (let offset = 0; offset < 30; offset += 10) pages.push(await client.listMonitors({ limit: 10, offset }));
    expect(pages.map((p) => p.totalSize)).toEqual([23, 23, 23]);
    expect(pages.flatMap((p) => p.httpMonitors.map((m) => m.name))).toEqual(names);
    expect(await client.listMonitors({ limit: 10, offset: 100 })).toEqual(expect.objectContaining({ httpMonitors: [], totalSize: 23 }));
  });
});
