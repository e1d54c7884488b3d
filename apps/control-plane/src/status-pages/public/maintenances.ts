import type { PrismaClient } from "@vigil/db";
import { MAINTENANCE_UPCOMING_MS, occurrencesBetween } from "@vigil/domain";
import type { MaintenanceOccurrenceView } from "./view";

/**
 * The occurrences of the maintenance windows naming components of a page
 * that overlap [from, to), newest first, at most `take`, each with the page's
 * components it names (in page order). A window naming only monitors is not
 * the page's to tell.
 */
export async function loadMaintenances(
  prisma: PrismaClient,
  pageId: string,
  components: readonly { id: string; name: string }[],
  range: { from: Date; to: Date; now: Date; take: number },
): Promise<MaintenanceOccurrenceView[]> {
  const windows = await prisma.maintenanceWindow.findMany({
    where: { components: { some: { component: { pageId } } }, startsAt: { lt: range.to } },
    include: { components: { select: { componentId: true } } },
  });
  const occurrences = windows.flatMap((window) => {
    const named = new Set(window.components.map((c) => c.componentId));
    const shown = components.filter((c) => named.has(c.id)).map((c) => ({ id: c.id, name: c.name }));
    return occurrencesBetween(window, range.from, range.to).map(
      (o): MaintenanceOccurrenceView => ({
        // An occurrence has no row of its own: its window and its start name it.
        id: `${window.id}.${o.startsAt.getTime()}`,
        windowId: window.id,
        title: window.title,
        message: window.message,
        startsAt: o.startsAt,
        endsAt: o.endsAt,
        status: o.endsAt <= range.now ? "completed" : o.startsAt <= range.now ? "in_progress" : "scheduled",
        components: shown,
        createdAt: window.createdAt,
        updatedAt: window.updatedAt,
      }),
    );
  });
  return occurrences.sort((a, b) => b.startsAt.getTime() - a.startsAt.getTime() || (a.id < b.id ? 1 : -1)).slice(0, range.take);
}

/** The page's maintenances going on and those starting within MAINTENANCE_UPCOMING_MS, soonest first. */
export async function loadCurrentMaintenances(prisma: PrismaClient, pageId: string, components: readonly { id: string; name: string }[], now: Date) {
  const found = await loadMaintenances(prisma, pageId, components, { from: now, to: new Date(now.getTime() + MAINTENANCE_UPCOMING_MS), now, take: 50 });
  return found.reverse();
}
