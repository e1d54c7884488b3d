// The failing and healthy results the alerting benches append, as agents report them, and their waiting loop.
import type { RegionId } from "@vigil/domain";
import { scheduledResultId, type ResultMessage } from "@vigil/queue";
import { checkResult } from "../support/results";
import { sleep } from "../support/run";

/** The result of a scheduler run as the agent reports it: healthy, or an HTTP 503 after its retries. */
export const result = (monitorId: string, region: RegionId, slotMillis: number, healthy: boolean): ResultMessage =>
  checkResult({
    id: scheduledResultId(region, monitorId, slotMillis),
    monitorId,
    region,
    startedAt: new Date(slotMillis + 50),
    status: healthy ? "success" : "error",
  });

/** One round: every monitor in each of `regions`. */
export const round = (monitorIds: string[], regions: readonly RegionId[], slotMillis: number, healthy: boolean) =>
  monitorIds.flatMap((id) => regions.map((region) => result(id, region, slotMillis, healthy)));

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
