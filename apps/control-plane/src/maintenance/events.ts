import type { Prisma } from "@vigil/db";
import type { MaintenanceView, Occurrence } from "@vigil/domain";

/** What a listener does once the transaction it was told in has committed. */
export type AfterCommit = () => Promise<void>;

const nothing: AfterCommit = async () => {};

/**
 * Who is told when a window is scheduled (created), and when one of its
 * occurrences starts and completes (the sweep, once across control planes):
 * the seam status page subscribers are wired to. A listener is told inside
 * the transaction that makes the event (the window's insert, the
 * occurrence's mark) and may write in it, so that what it writes and the
 * event commit together; it returns what to do after the commit. An error
 * rolls the event back, to be made again (a sweep's by the next sweep).
 */
export interface MaintenanceEvents {
  scheduled(tx: Prisma.TransactionClient, window: MaintenanceView): Promise<AfterCommit>;
  started(tx: Prisma.TransactionClient, window: MaintenanceView, occurrence: Occurrence): Promise<AfterCommit>;
  completed(tx: Prisma.TransactionClient, window: MaintenanceView, occurrence: Occurrence): Promise<AfterCommit>;
}

/**
 * The events of one control plane, told to each listener in turn: the
 * pipeline's sweep and the API's create path tell it, and status page
 * subscribers (subscribers/maintenance-notices.ts) listen once the API
 * server has started.
 */
export class MaintenanceEventHub implements MaintenanceEvents {
  private readonly listeners: MaintenanceEvents[] = [];

  /** Tells `listener` of every event from now on. */
  listen(listener: MaintenanceEvents): void {
    this.listeners.push(listener);
  }

  scheduled(tx: Prisma.TransactionClient, window: MaintenanceView): Promise<AfterCommit> {
    return this.tell((listener) => listener.scheduled(tx, window));
  }

  started(tx: Prisma.TransactionClient, window: MaintenanceView, occurrence: Occurrence): Promise<AfterCommit> {
    return this.tell((listener) => listener.started(tx, window, occurrence));
  }

  completed(tx: Prisma.TransactionClient, window: MaintenanceView, occurrence: Occurrence): Promise<AfterCommit> {
    return this.tell((listener) => listener.completed(tx, window, occurrence));
  }

  /** Tells the listeners one after the other (they share the transaction); their after-commit steps run in the same order. */
  private async tell(each: (listener: MaintenanceEvents) => Promise<AfterCommit>): Promise<AfterCommit> {
    const after: AfterCommit[] = [];
    for (const listener of this.listeners) after.push(await each(listener));
    if (after.length === 0) return nothing;
    return async () => {
      for (const step of after) await step();
    };
  }
}
