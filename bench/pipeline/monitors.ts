// Monitors for the pipeline and scheduling benchmarks, written as bench/seed.ts writes them
// (a workspace from Administration, rows from the repository's monitorColumns, createMany in chunks),
// but all of one shape: active HTTP monitors at a given periodicity in given regions.
import type { PrismaClient } from "@vigil/db";
import { parseMonitorConfig, type Periodicity, type RegionId } from "@vigil/domain";
import { Administration } from "../../apps/control-plane/src/admin/operations";
import { monitorColumns } from "../../apps/control-plane/src/monitors/repository";

export async function seedActiveMonitors(
  prisma: PrismaClient,
  count: number,
  shape: { periodicity: Periodicity; regions: readonly RegionId[] },
): Promise<string[]> {
  const workspace = await new Administration(prisma).createWorkspace({ name: "Benchmark", slug: "bench" });
  const start = Date.now() - count;
  const chunk = 1_000;
  for (let from = 0; from < count; from += chunk) {
    const data = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const config = parseMonitorConfig("http", {
        name: `http check ${i}`,
        url: `https://service-${i}.example.com/health`,
        periodicity: shape.periodicity,
        regions: [...shape.regions],
        active: true,
        statusCodeAssertions: [{ target: 200, comparator: "eq" }],
      });
      data.push({ workspaceId: workspace.id, createdAt: new Date(start + i), kind: "http" as const, ...monitorColumns("http", config) });
    }
    await prisma.monitor.createMany({ data });
  }
  const rows = await prisma.monitor.findMany({ where: { workspaceId: workspace.id }, select: { id: true }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => row.id);
}
