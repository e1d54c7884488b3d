/**
 * Latencies are summarised in logarithmic buckets: bucket b holds latencies in
 * [MIN_MS * GROWTH^b, MIN_MS * GROWTH^(b+1)). A percentile read from bucket
 * counts is the bucket's geometric midpoint, so it is within
 * sqrt(GROWTH) - 1 (under 1 %) of the exact percentile of the same results,
 * before rounding to whole milliseconds. Buckets add up across hours and
 * regions, which is what lets summaries skip the raw results.
 */
const MIN_MS = 0.1;
const GROWTH = 1.02;
const LOG_GROWTH = Math.log(GROWTH);

export const PERCENTILE_RELATIVE_ERROR = Math.sqrt(GROWTH) - 1;

export function latencyBucket(latencyMs: number): number {
  if (!(latencyMs > MIN_MS)) return 0;
  return Math.floor(Math.log(latencyMs / MIN_MS) / LOG_GROWTH);
}

export function bucketLatency(bucket: number): number {
  return MIN_MS * GROWTH ** (bucket + 0.5);
}

/**
 * Nearest-rank percentiles (the smallest latency with at least p % of results
 * at or below it) from bucket counts, in whole milliseconds; 0 without data.
 */
export function percentilesFromBuckets<P extends number>(
  counts: ReadonlyArray<{ bucket: number; count: number }>,
  percentiles: readonly P[],
): Record<P, number> {
  const sorted = [...counts].sort((a, b) => a.bucket - b.bucket);
  const total = sorted.reduce((sum, c) => sum + c.count, 0);
  const result = {} as Record<P, number>;
  for (const p of percentiles) {
    if (total === 0) {
      result[p] = 0;
      continue;
    }
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    const hit = sorted.find((c) => (seen += c.count) >= rank)!;
    result[p] = Math.round(bucketLatency(hit.bucket));
  }
  return result;
}
