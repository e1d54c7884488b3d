import type { PrismaClient } from "@vigil/db";
import type { MaintenanceView, Occurrence } from "@vigil/domain";
import type { MaintenanceEvents } from "../../maintenance/events";
import type { SubscriberNoticeSink } from "./notices";

type Told = "scheduled" | "started" | "completed";

const STATUS: Record<Told, string> = { scheduled: "scheduled", started: "in_progress", completed: "completed" };

/**
 * Tells status page subscribers of maintenance: each page with components the
 * window names gets one notice, naming those components (subscribers of
 * others are not told). A window that names only monitors tells no page.
 */
export function maintenanceNotices(prisma: PrismaClient, sink: SubscriberNoticeSink): MaintenanceEvents {
  const tell = async (told: Told, window: MaintenanceView, occurrence?: Occurrence) => {
    if (window.pageComponentIds.length === 0) return;
    const components = await prisma.statusPageComponent.findMany({ where: { id: { in: [...window.pageComponentIds] } }, select: { id: true, pageId: true } });
    const byPage = new Map<string, string[]>();
    for (const c of components) byPage.set(c.pageId, [...(byPage.get(c.pageId) ?? []), c.id]);
    for (const [pageId, named] of byPage) {
      await sink.notify(pageId, {
        kind: `maintenance.${told}`,
        // One window's occurrences are told apart by their start.
        subjectId: occurrence ? `${window.id}.${occurrence.startsAt.getTime()}` : window.id,
        title: window.title,
        message: window.message,
        status: STATUS[told],
        componentIds: named,
      });
    }
  };
  return {
    scheduled: (window) => tell("scheduled", window),
    started: (window, occurrence) => tell("started", window, occurrence),
    completed: (window, occurrence) => tell("completed", window, occurrence),
  };
}
