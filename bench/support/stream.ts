// Check results appended to the results stream as agents publish them, for the benchmarks that time how a control
// plane stores them.
import { encodeResult, type RedisConnection, type ResultMessage } from "@vigil/queue";

/** XADDs sent in one pipeline. */
export const XADD_PIPELINE = 1_000;

/** Appends `results` to the stream `key` in pipelines of XADD_PIPELINE; throws the first refusal. */
export async function appendResults(redis: RedisConnection, key: string, results: ResultMessage[]): Promise<void> {
  for (let from = 0; from < results.length; from += XADD_PIPELINE) {
    const pipeline = redis.pipeline();
    for (const message of results.slice(from, from + XADD_PIPELINE)) pipeline.xadd(key, "*", ...encodeResult(message));
    const failed = (await pipeline.exec())?.find(([error]) => error);
    if (failed) throw failed[0];
  }
}
