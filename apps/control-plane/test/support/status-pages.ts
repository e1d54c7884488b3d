import type { Prisma, PrismaClient } from "@vigil/db";

/**
 * Status pages, components and groups written straight to the database, so
 * that tests of the public pages do not depend on the management API.
 */
export function statusPageFixtures(prisma: PrismaClient, workspaceId: string) {
  let pages = 0;
  return {
    page: (fields: Partial<Omit<Prisma.StatusPageUncheckedCreateInput, "workspaceId">> = {}) =>
      prisma.statusPage.create({ data: { title: `Page ${++pages}`, slug: `page-${process.pid}-${pages}-${Date.now()}`, ...fields, workspaceId } }),
    component: (pageId: string, fields: Partial<Omit<Prisma.StatusPageComponentUncheckedCreateInput, "pageId">> = {}) =>
      prisma.statusPageComponent.create({ data: { type: fields.monitorId ? "monitor" : "static", ...fields, pageId } }),
    group: (pageId: string, name: string, createdAt?: Date) => prisma.statusPageComponentGroup.create({ data: { pageId, name, createdAt } }),
  };
}

/** A UTC day `daysAgo` before `now`, at midnight, as the daily aggregates key it. */
export const utcDay = (now: Date, daysAgo: number) => new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 - daysAgo * 86_400_000);

/** Seeds a day of a monitor's daily counts in a region, as ingest would have added them up. */
export function seedDay(
  prisma: PrismaClient,
  monitorId: string,
  day: Date,
  counts: { successful?: number; degraded?: number; failed?: number },
  region = "hostA-ams",
) {
  return prisma.dailyResultCount.create({ data: { monitorId, region, day, successful: 0, degraded: 0, failed: 0, ...counts } });
}
