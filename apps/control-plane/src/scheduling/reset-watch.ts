import type { Logger } from "@vigil/logging";
import type { RedisConnection } from "@vigil/queue";

/** Why the schedules in Redis must be rebuilt now. */
export type RedisReset = "flushed" | "replaced";

/**
 * Reads the marker and the run_id (new for every server process) of the
 * server holding the marker, in one round trip; a script so that under
 * Cluster it runs on the marker's node.
 */
const READ = `local info = redis.call('INFO', 'server')
return {redis.call('GET', KEYS[1]) or false, string.match(info, 'run_id:(%w+)')}`;
/** Sets the marker to the run_id of the server holding it. */
const MARK = `local runId = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
redis.call('SET', KEYS[1], runId)
return runId`;

/**
 * Notices within a tick that Redis lost the schedules, so they are rebuilt
 * at once rather than at the next periodic reconciliation: a marker key,
 * written at every reconciliation, holds the run_id of the server it was
 * written to. The marker gone means a flush (FLUSHALL, FLUSHDB, eviction);
 * another run_id means another server (a restart, a fail-over to a replica
 * that may have missed writes). Each tick is one small script call.
 */
export class RedisResetWatch {
  /** The server the schedules were last rebuilt on; undefined before the first rebuild and while one is due. */
  private runId: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Commands wait for a lost connection (see connectRedis): never more than one check in flight. */
  private checking = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly markerKey: string,
    private readonly intervalMs: number,
    private readonly onReset: (reason: RedisReset) => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Records that the schedules are rebuilt on the server now answering. Call before rebuilding them, so that a flush during the rebuild is noticed too. */
  async mark(): Promise<void> {
    this.runId = String(await this.redis.eval(MARK, 1, this.markerKey));
  }

  private async check(): Promise<void> {
    if (this.checking || this.runId === undefined) return;
    this.checking = true;
    try {
      const [marker, runId] = (await this.redis.eval(READ, 1, this.markerKey)) as [string | null, string];
      const reason = marker === null ? "flushed" : marker !== this.runId || runId !== this.runId ? "replaced" : undefined;
      if (reason && this.runId !== undefined) {
        // Quiet until the rebuild marks the server again.
        this.runId = undefined;
        this.onReset(reason);
      }
    } catch (error) {
      this.logger.debug({ err: error }, "checking the Redis schedules marker failed");
    } finally {
      this.checking = false;
    }
  }
}
