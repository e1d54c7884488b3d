import type { PrismaClient } from "@vigil/db";
import { PERIODICITIES, REGION_IDS, parseMonitorConfig, type MonitorConfigByKind, type MonitorKind } from "@vigil/domain";
import { Administration } from "../apps/control-plane/src/admin/operations";
import { monitorColumns } from "../apps/control-plane/src/monitors/repository";

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

/** One workspace with a read key and `count` monitors, created a millisecond apart as if made over time. */
export async function seedWorkspace(prisma: PrismaClient, count: number): Promise<Seeded> {
  const admin = new Administration(prisma);
  const workspace = await admin.createWorkspace({ name: "Benchmark", slug: "bench" });
  // A read key is what a dashboard would list and get with; the auth path is the same for both scopes.
  const { key } = await admin.createApiKey({ workspaceSlug: workspace.slug, scope: "read" });

  const start = Date.now() - count;
  const chunk = 1_000;
  for (let from = 0; from < count; from += chunk) {
    const data = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const kind = kindOf(i);
      data.push({ workspaceId: workspace.id, createdAt: new Date(start + i), kind, ...monitorColumns(kind, configFor(i, kind)) });
    }
    await prisma.monitor.createMany({ data });
  }
  const rows = await prisma.monitor.findMany({ where: { workspaceId: workspace.id }, select: { id: true } });
  return { key, monitorIds: rows.map((row) => row.id) };
}
