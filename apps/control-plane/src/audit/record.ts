import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@vigil/logging";
import type { AuditRecord, AuditStore } from "./store";

/** Waits before the second and third attempt: enough to ride out a database failover's first seconds. */
const RETRY_DELAYS_MS = [200, 1_000];

/**
 * Writes an entry for a mutation that has already succeeded. Failing the call
 * now would make the client retry a change that was made, so a write that
 * keeps failing is logged in full instead (it holds no secrets), never dropped
 * silently.
 */
export async function recordAudit(store: AuditStore, entry: AuditRecord, logger: Logger): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await store.record(entry);
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) return logger.error({ err: error, audit: entry }, "audit entry not written");
      await sleep(delay);
    }
  }
}
