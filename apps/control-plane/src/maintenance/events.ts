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

export const NO_MAINTENANCE_EVENTS: MaintenanceEvents = {
  scheduled: async () => undefined,
  started: async () => undefined,
  completed: async () => undefined,
};
