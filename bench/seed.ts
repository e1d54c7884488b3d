import type { PrismaClient } from "@vigil/db";
import { PERIODICITIES, REGION_IDS, parseMonitorConfig, type MonitorConfigByKind, type MonitorKind, type Periodicity, type RegionId } from "@vigil/domain";
import { Administration } from "@vigil/control-plane/admin/operations";
import { monitorColumns } from "@vigil/control-plane/monitors/repository";

export interface Seeded {
  key: string;
  monitorIds: string[];
}

/** Mostly HTTP, some TCP and DNS, so ListMonitors has to split every page into three lists. */
const kindOf = (i: number): MonitorKind => (i % 10 < 7 ? "http" : i % 10 < 9 ? "tcp" : "dns");

function configFor(i: number, kind: MonitorKind): MonitorConfigByKind[MonitorKind] {
  const common = {
    name: `${kind} check ${i}`,
    periodicity: PERIODICITIES[i % PERIODICITIES.length],
    regions: [0, 7, 19, 25].map((offset) => REGION_IDS[(i + offset) % REGION_IDS.length]).slice(0, 1 + (i % 4)),
    active: i % 5 !== 0,
    description: i % 3 === 0 ? `Monitor ${i} of the benchmark workspace` : "",
  };
  if (kind === "tcp") return parseMonitorConfig("tcp", { ...common, uri: `db-${i}.internal.example.com:5432` });
  if (kind === "dns") {
    return parseMonitorConfig("dns", {
      ...common,
      uri: `svc-${i}.example.com`,
      recordAssertions: [{ record: "A", target: "192.0.2.10", comparator: "eq" }],
    });
  }
  return parseMonitorConfig("http", {
    ...common,
    url: `https://service-${i}.example.com/health?region=eu`,
    headers: [{ key: "accept", value: "application/json" }],
    statusCodeAssertions: [{ target: 200, comparator: "eq" }],
    bodyAssertions: i % 2 === 0 ? [{ target: "ok", comparator: "contains" }] : [],
  });
}

/**
 * Inserts `count` monitors into the workspace, `monitorOf(i)` each, created a millisecond apart as if made over time:
 * rows from the repository's monitorColumns, createMany in chunks.
 */
async function insertMonitors(
  prisma: PrismaClient,
  workspaceId: string,
  count: number,
  monitorOf: (i: number) => { kind: MonitorKind; config: MonitorConfigByKind[MonitorKind] },
): Promise<void> {
  const start = Date.now() - count;
  const chunk = 1_000;
  for (let from = 0; from < count; from += chunk) {
    const data = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const { kind, config } = monitorOf(i);
      data.push({ workspaceId, createdAt: new Date(start + i), kind, ...monitorColumns(kind, config) });
    }
    await prisma.monitor.createMany({ data });
  }
}

/** One workspace with a read key and `count` monitors of every kind and shape. */
export async function seedWorkspace(prisma: PrismaClient, count: number): Promise<Seeded> {
  const admin = new Administration(prisma);
  const workspace = await admin.createWorkspace({ name: "Benchmark", slug: "bench" });
  // A read key is what a dashboard would list and get with; the auth path is the same for both scopes.
  const { key } = await admin.createApiKey({ workspaceSlug: workspace.slug, scope: "read" });
  await insertMonitors(prisma, workspace.id, count, (i) => ({ kind: kindOf(i), config: configFor(i, kindOf(i)) }));
  const rows = await prisma.monitor.findMany({ where: { workspaceId: workspace.id }, select: { id: true } });
  return { key, monitorIds: rows.map((row) => row.id) };
}

/** `count` active HTTP monitors of one shape (the pipeline, scheduling and alerting benchmarks'), their ids in creation order. */
export async function seedActiveMonitors(
  prisma: PrismaClient,
  count: number,
  shape: { periodicity: Periodicity; regions: readonly RegionId[] },
): Promise<string[]> {
  const workspace = await new Administration(prisma).createWorkspace({ name: "Benchmark", slug: "bench" });
  await insertMonitors(prisma, workspace.id, count, (i) => ({
    kind: "http",
    config: parseMonitorConfig("http", {
      name: `http check ${i}`,
      url: `https://service-${i}.example.com/health`,
      periodicity: shape.periodicity,
      regions: [...shape.regions],
      active: true,
      statusCodeAssertions: [{ target: 200, comparator: "eq" }],
    }),
  }));
  const rows = await prisma.monitor.findMany({ where: { workspaceId: workspace.id }, select: { id: true }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => row.id);
}
