// Synthetic check results shaped like the agent's (bench/pipeline.ts): ids as the agent makes them
// (scheduledResultId: region, monitor and the time the check was due),
// and latencies that differ by region, vary over the day and have a slow tail. Deterministic
// (seeded PRNG), so runs store the same data.
import { REGION_IDS, type RegionId } from "@vigil/domain";
import { scheduledResultId, type ResultMessage } from "@vigil/queue";

/** mulberry32: small, fast and good enough for synthetic data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ERROR_SHARE = 0.005;
export const SLOW_SHARE = 0.02;

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

export class ResultFactory {
  private readonly next: () => number;

  constructor(seed = 1) {
    this.next = random(seed);
  }

  private normal(): number {
    // Box-Muller.
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }

  /**
   * The result of `monitorId`'s check due in `region` at `slotMillis`. Median latency
   * 20 ms in the first region up to ~260 ms in the last (distance), +-15 % over the day, lognormal
   * spread (sigma 0.25); 2 % of checks are 2-8x slower and degraded; 0.5 % fail (timeout, not timed).
   */
  result(monitorId: string, region: RegionId, slotMillis: number): ResultMessage {
    const g = REGION_IDS.indexOf(region);
    const startedAt = new Date(slotMillis + Math.floor(this.next() * 200)).toISOString();
    const id = scheduledResultId(region, monitorId, slotMillis);
    const common = { id, monitorId, region, trigger: "scheduled" as const, startedAt };
    if (this.next() < ERROR_SHARE) {
      return {
        ...common,
        latencyMs: 10_000,
        timing: { dnsMs: 1.2, connectMs: null, tlsMs: null, firstByteMs: null, transferMs: null },
        statusCode: null,
        status: "error",
        error: "timed out after 10000 ms",
        reason: "timeout",
        attempts: 2,
      };
    }
    const hourOfDay = new Date(slotMillis).getUTCHours() + g; // regions peak at different hours
    let latency = (20 + 9 * g) * Math.exp(0.25 * this.normal()) * (1 + 0.15 * Math.sin((2 * Math.PI * hourOfDay) / 24));
    const slow = this.next() < SLOW_SHARE;
    if (slow) latency *= 2 + 6 * this.next();
    return {
      ...common,
      latencyMs: round3(latency),
      timing: {
        dnsMs: round3(latency * 0.05),
        connectMs: round3(latency * 0.15),
        tlsMs: round3(latency * 0.2),
        firstByteMs: round3(latency * 0.55),
        transferMs: round3(latency * 0.05),
      },
      statusCode: 200,
      status: slow ? "degraded" : "success",
      error: null,
      reason: null,
      attempts: 1,
    };
  }
}
