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

/** Adds counts to a monitor's day over all regions, as ingest would have added its results up. */
export function seedDay(prisma: PrismaClient, monitorId: string, day: Date, counts: { successful?: number; degraded?: number; failed?: number }) {
  const { successful = 0, degraded = 0, failed = 0 } = counts;
  return prisma.allRegionDailyResultCount.upsert({
    where: { monitorId_day: { monitorId, day } },
    create: { monitorId, day, successful, degraded, failed },
    update: { successful: { increment: successful }, degraded: { increment: degraded }, failed: { increment: failed } },
  });
}
