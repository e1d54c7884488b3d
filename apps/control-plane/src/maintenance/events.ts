import type { MaintenanceView, Occurrence } from "@vigil/domain";

/**
 * Who is told when a window is scheduled (created), and when one of its
 * occurrences starts and completes (the sweep, once across control planes):
 * the seam status page subscribers are wired to. Errors are the caller's to
 * log; a window works the same whether anyone listens.
 */
export interface MaintenanceEvents {
  scheduled(window: MaintenanceView): Promise<void>;
  started(window: MaintenanceView, occurrence: Occurrence): Promise<void>;
  completed(window: MaintenanceView, occurrence: Occurrence): Promise<void>;
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

  async scheduled(window: MaintenanceView): Promise<void> {
    for (const listener of this.listeners) await listener.scheduled(window);
  }

  async started(window: MaintenanceView, occurrence: Occurrence): Promise<void> {
    for (const listener of this.listeners) await listener.started(window, occurrence);
  }

  async completed(window: MaintenanceView, occurrence: Occurrence): Promise<void> {
    for (const listener of this.listeners) await listener.completed(window, occurrence);
  }
}
