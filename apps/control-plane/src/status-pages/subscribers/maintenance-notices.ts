import type { Prisma } from "@vigil/db";
import type { MaintenanceView, Occurrence } from "@vigil/domain";
import type { AfterCommit, MaintenanceEvents } from "../../maintenance/events";
import type { SubscriberNoticeSink, WrittenNotice } from "./notices";

type Told = "scheduled" | "started" | "completed";

const STATUS: Record<Told, string> = { scheduled: "scheduled", started: "in_progress", completed: "completed" };

/**
 * Tells status page subscribers of maintenance: each page with components the
 * window names gets one notice, naming those components (subscribers of
 * others are not told). A window that names only monitors tells no page.
 * The notices are written in the event's transaction and queued after it.
 */
export function maintenanceNotices(sink: SubscriberNoticeSink): MaintenanceEvents {
  const tell = async (tx: Prisma.TransactionClient, told: Told, window: MaintenanceView, occurrence?: Occurrence): Promise<AfterCommit> => {
    if (window.pageComponentIds.length === 0) return async () => {};
    const components = await tx.statusPageComponent.findMany({ where: { id: { in: [...window.pageComponentIds] } }, select: { id: true, pageId: true } });
    const byPage = new Map<string, string[]>();
    for (const c of components) byPage.set(c.pageId, [...(byPage.get(c.pageId) ?? []), c.id]);
    const written: (WrittenNotice | null)[] = [];
    for (const [pageId, named] of byPage) {
      written.push(
        await sink.write(tx, pageId, {
          kind: `maintenance.${told}`,
          // One window's occurrences are told apart by their start.
          subjectId: occurrence ? `${window.id}.${occurrence.startsAt.getTime()}` : window.id,
          title: window.title,
          message: window.message,
          status: STATUS[told],
          componentIds: named,
        }),
      );
    }
    return () => sink.queue(written);
  };
  return {
    scheduled: (tx, window) => tell(tx, "scheduled", window),
    started: (tx, window, occurrence) => tell(tx, "started", window, occurrence),
    completed: (tx, window, occurrence) => tell(tx, "completed", window, occurrence),
  };
}
