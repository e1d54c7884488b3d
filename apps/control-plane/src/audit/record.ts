import pRetry from "p-retry";
import { AUDIT_WRITE_ATTEMPTS, DEPENDENCY_RETRY } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import type { AuditRecord, AuditStore } from "./store";

/**
 * Writes an entry for a mutation that has already succeeded. Failing the call
 * now would make the client retry a change that was made, so a write that
 * keeps failing is logged in full instead (it holds no secrets), never dropped
 * silently.
 */
export async function recordAudit(store: AuditStore, entry: AuditRecord, logger: Logger): Promise<void> {
  await pRetry(() => store.record(entry), { ...DEPENDENCY_RETRY, retries: AUDIT_WRITE_ATTEMPTS - 1 }).catch((error: unknown) =>
    logger.error({ err: error, audit: entry }, "audit entry not written"),
  );
}
