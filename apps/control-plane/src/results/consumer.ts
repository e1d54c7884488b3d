import { setTimeout as delay } from "node:timers/promises";
import pRetry, { type RetryContext } from "p-retry";
import type { PrismaClient } from "@vigil/db";
import { DEPENDENCY_RETRY } from "@vigil/domain";
import { RESULTS_GROUP, closeRedis, decodeResult, resultsStreamKey, type ResultMessage, type RedisConnection } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { StatusRules } from "../status/rules";
import { isDatabaseUnavailable } from "../errors";
import { dependencyTrees } from "../alerting/dependents";
import { lanesFor, splitIntoLanes } from "./lanes";
import { storeResults } from "./store";
import { startIngest } from "../metrics/record";

type Entry = [id: string, fields: string[]];
type StreamReply = [stream: string, entries: Entry[]][] | null;

export interface ConsumerOptions {
  prefix: string;
  /** Unique per control-plane process. */
  consumer: string;
  rules: StatusRules;
  /** Queues the deliveries of the events a stored batch created. */
  onEvents(eventIds: readonly string[]): Promise<void>;
  /** Told, once a batch is stored, the workspaces it stored results of (their overviews changed). */
  onStored?(workspaceIds: readonly string[]): void;
  batchSize?: number;
  /** Transactions storing parts of a batch at once (lanes.ts); 1 unless set. */
  lanes?: number;
  blockMs?: number;
  /**
   * Another connection to the same Redis, open until stop() returns: stop() ends a blocking read through it
   * (CLIENT UNBLOCK) instead of waiting up to blockMs for it.
   */
  unblockWith?: RedisConnection;
  /** How long a batch that is not full gathers more entries before it is stored; GATHER_MS unless set. */
  gatherMs?: number;
  /** Entries another consumer took but has not acknowledged for this long are taken over (it died). */
  claimIdleMs?: number;
  /** Longest wait between tries while storing fails (the database away); DEPENDENCY_RETRY's unless set. */
  maxRetryDelayMs?: number;
}

/** Entries read per batch unless ConsumerOptions.batchSize says otherwise. */
export const DEFAULT_BATCH_SIZE = 2_000;

/**
 * How long a batch that is not full waits for more entries before it is stored. A batch costs about the same
 * whatever its size up to tens of results (about 8 statements and a transaction: PGlite about 9 ms of CPU, and
 * 0.4 ms per result more), so at a steady trickle the batches, not the results, are the control plane's work: at
 * 500 monitors every 30 s the whole system spent 12.4 CPU ms a check at 250 ms and 8.1 at 1 s (bench:peer,
 * docs/scaling.md). A status or an alert waits at most this much longer, against the seconds a check takes, the
 * 30 s or more between checks and the 5 s goal of alert delivery (bench:alerting).
 */
export const GATHER_MS = 1_000;

/**
 * Reads results from the Redis stream with a consumer group, stores each
 * batch in one transaction and only then acknowledges it. Entries are
 * delivered at least once (a crash before the acknowledgement redelivers
 * them) and stored exactly once (storeResults skips known ids), so a
 * control plane restarted in a burst loses and doubles nothing. Replicas share
 * the stream: each entry goes to one of them.
 */
export class ResultsConsumer {
  private readonly key: string;
  private readonly batchSize: number;
  private readonly blockMs: number;
  private readonly gatherMs: number;
  private readonly claimIdleMs: number;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** Read our own unacknowledged entries (after a restart or a failed batch) before new ones. */
  private backlog = true;
  private lastClaim = 0;
  private groupReady = false;
  private readonly maxRetryDelayMs: number;
  /** The next batch, read from Redis while the database stores the one before. */
  private ahead: Promise<Entry[]> | undefined;
  /** Aborted by stop(): cuts short the wait before a retry. */
  private readonly stopped = new AbortController();
  private giveUpOnRedis: () => void = () => {};
  /** The connection's id at Redis (CLIENT ID), what CLIENT UNBLOCK names: asked before a blocking read, anew after a reconnection. */
  private clientId: number | undefined;
  private readonly forgetClientId = () => (this.clientId = undefined);
  /**
   * Rejects once stop() gives up on an unreachable Redis. Raced with every command: a connection closed while
   * ioredis waits to reconnect never settles the commands it holds (redis/ioredis#2169).
   */
  private readonly redisGivenUp = new Promise<never>((_, reject) => {
    this.giveUpOnRedis = () => reject(new Error("stopped while Redis was unreachable"));
  });

  /** `redis` is the consumer's own connection (its reads block): stop() closes it. */
  constructor(
    private readonly redis: RedisConnection,
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: ConsumerOptions,
  ) {
    this.key = resultsStreamKey(options.prefix);
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.blockMs = options.blockMs ?? 1_000;
    this.gatherMs = options.gatherMs ?? GATHER_MS;
    this.claimIdleMs = options.claimIdleMs ?? 30_000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? DEPENDENCY_RETRY.maxTimeout;
    this.redisGivenUp.catch(() => {});
  }

  /** A command's answer, unless stop() gives up on Redis first. */
  private answer<T>(command: Promise<T>): Promise<T> {
    return Promise.race([command, this.redisGivenUp]);
  }

  start(): void {
    if (this.running) return;
    this.redis.on("ready", this.forgetClientId);
    this.running = this.loop();
  }

  /**
   * Finishes the batch in hand, then stops and closes its connection. What waits for an unreachable Redis is
   * given up rather than waited for (ioredis holds commands until it reconnects): entries not read stay in the
   * stream, and a stored batch whose acknowledgement is lost is read again and skipped by id (store.ts).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    // The connection is closed once, below: closeRedis drops it while Redis is unreachable.
    const giveUp = () => this.giveUpOnRedis();
    if (this.redis.status === "ready") {
      this.redis.once("close", giveUp);
      // A read waiting for entries answers none at once; one that has entries delivers them as ever.
      const other = this.options.unblockWith;
      // Only over a connection that is up, and not waited for: should Redis go away just now, ioredis holds the
      // command until it is back, while the read it would end is given up on at the close above.
      if (this.clientId !== undefined && other?.status === "ready") void other.client("UNBLOCK", this.clientId).catch(() => {});
    } else giveUp();
    await this.running;
    this.redis.off("close", giveUp);
    this.redis.off("ready", this.forgetClientId);
    await closeRedis(this.redis);
  }

  /** Batch after batch; a failed one is read and stored again after a wait (DEPENDENCY_RETRY) until it is stored. */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      await pRetry(() => this.step(), {
        ...DEPENDENCY_RETRY,
        maxTimeout: this.maxRetryDelayMs,
        retries: Infinity,
        signal: this.stopped.signal,
        onFailedAttempt: (context) => this.failed(context),
        // Redis lost the stream (flushed or replaced): it is recreated at once, not waited for.
        shouldConsumeRetry: ({ error }) => !isNoGroup(error),
      }).catch((error: unknown) => {
        if (!this.stopping) throw error;
      });
    }
    await this.finishReadAhead(this.ahead);
  }

  private async step(): Promise<void> {
    try {
      if (!this.groupReady) {
        await this.ensureGroup();
        this.groupReady = true;
      }
      const first = await (this.ahead ?? this.next(true));
      this.ahead = undefined;
      if (first.length === 0) return;
      const entries = this.backlog ? first : await this.gather(first);
      // Not while reading our unacknowledged entries: that read would return this batch again.
      // Without BLOCK: an empty stream answers at once, so this batch's XACK on the same
      // connection never waits behind a blocking read.
      if (!this.backlog) {
        this.ahead = this.next(false);
        // Its failure, if any, is met where it is awaited.
        this.ahead.catch(() => {});
      }
      await this.handle(entries);
    } catch (error) {
      // p-retry gives up at once on a TypeError (it takes one for a fault in the code); here every failure waits
      // and tries again, as the batch stays in the stream either way.
      throw error instanceof TypeError ? new Error(error.message, { cause: error }) : error;
    }
  }

  private async failed({ error, retriesConsumed }: RetryContext): Promise<void> {
    // stop() aborting the wait is no failure of the batch, which stays in the stream.
    if (this.stopping) return;
    // A read ahead must have settled before we go back to our unacknowledged entries, or it
    // could mark the backlog read after we asked for it again.
    await this.ahead?.catch(() => {});
    this.ahead = undefined;
    // Unacknowledged entries stay ours: read them again before new ones.
    this.backlog = true;
    if (isNoGroup(error)) {
      this.logger.warn("the results stream or its consumer group is gone; recreating it");
      this.groupReady = false;
      return;
    }
    const what = isDatabaseUnavailable(error) ? "the database is unreachable; results wait in the stream" : "storing results failed";
    this.logger.error({ err: error, attempt: retriesConsumed + 1 }, `${what}; retrying`);
  }

  /** Stores a batch read ahead when stop() came, so that stopping leaves none of ours unacknowledged. */
  private async finishReadAhead(ahead: Promise<Entry[]> | undefined): Promise<void> {
    try {
      const entries = (await ahead) ?? [];
      if (entries.length > 0) await this.handle(entries);
    } catch (error) {
      this.logger.warn({ err: error }, "storing the batch read ahead failed while stopping; another control plane takes it over");
    }
  }

  private async ensureGroup(): Promise<void> {
    try {
      // From the stream's start: results agents wrote before any control plane ran are stored too.
      await this.answer(this.redis.xgroup("CREATE", this.key, RESULTS_GROUP, "0", "MKSTREAM"));
    } catch (error) {
      if (!String(error).includes("BUSYGROUP")) throw error;
    }
  }

  /** `entries` and those that arrive within gatherMs, up to a full batch; stopping cuts the wait short. */
  private async gather(entries: Entry[]): Promise<Entry[]> {
    if (entries.length >= this.batchSize || this.gatherMs <= 0) return entries;
    await delay(this.gatherMs, undefined, { signal: this.stopped.signal }).catch(() => {});
    return entries.concat(await this.next(false, this.batchSize - entries.length));
  }

  /** The next batch (of up to `count`): ours unacknowledged first, else new entries, waiting for them up to blockMs when `block`. */
  private async next(block: boolean, count = this.batchSize): Promise<Entry[]> {
    if (Date.now() - this.lastClaim > this.claimIdleMs / 2) {
      this.lastClaim = Date.now();
      const [, claimed] = (await this.answer(
        this.redis.xautoclaim(this.key, RESULTS_GROUP, this.options.consumer, this.claimIdleMs, "0-0", "COUNT", count),
      )) as [string, Entry[]];
      if (claimed.length > 0) return claimed;
    }
    if (block && this.options.unblockWith && this.clientId === undefined) this.clientId = Number(await this.answer(this.redis.client("ID")));
    const group = ["GROUP", RESULTS_GROUP, this.options.consumer, "COUNT", count] as const;
    const reply = (await this.answer(
      this.backlog
        ? this.redis.xreadgroup(...group, "STREAMS", this.key, "0")
        : block && !this.stopping
          ? this.redis.xreadgroup(...group, "BLOCK", this.blockMs, "STREAMS", this.key, ">")
          : this.redis.xreadgroup(...group, "STREAMS", this.key, ">"),
    )) as StreamReply;
    const entries = reply?.[0]?.[1] ?? [];
    if (this.backlog && entries.length === 0) this.backlog = false;
    return entries;
  }

  private async handle(entries: Entry[]): Promise<void> {
    const ingested = startIngest(entries.length);
    const results: ResultMessage[] = [];
    for (const [id, fields] of entries) {
      const message = decodeResult(fields);
      if (message) results.push(message);
      else this.logger.warn({ entry: id }, "dropping a malformed result entry");
    }
    const count = lanesFor(results.length, this.options.lanes ?? 1);
    const trees = count > 1 ? await dependencyTrees(this.prisma, [...new Set(results.map((r) => r.monitorId))]) : new Map<string, string>();
    const split = splitIntoLanes(results, count, (id) => trees.get(id) ?? id);
    const lanes = await Promise.allSettled(split.map((lane) => storeResults(this.prisma, lane, this.options.rules)));
    const stored = lanes.flatMap((lane) => (lane.status === "fulfilled" ? [lane.value] : []));
    const eventIds = stored.flatMap((lane) => lane.eventIds);
    this.options.onStored?.([...new Set(stored.flatMap((lane) => lane.workspaceIds))]);
    const failed = lanes.find((lane) => lane.status === "rejected");
    if (failed) {
      // The whole batch is read again; what the other lanes stored counts once (store.ts), and their events are told now.
      await this.queueEvents(eventIds);
      throw failed.reason;
    }
    const ids = entries.map(([id]) => id);
    await this.answer(this.redis.multi().xack(this.key, RESULTS_GROUP, ...ids).xdel(this.key, ...ids).exec());
    ingested();
    this.logger.debug({ received: entries.length, stored: stored.reduce((sum, lane) => sum + lane.stored, 0), events: eventIds.length }, "results stored");
    await this.queueEvents(eventIds);
  }

  /** Committed already: if queueing fails now, the deliveries' sweep queues them later. */
  private async queueEvents(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.options.onEvents(eventIds).catch((error: unknown) =>
      this.logger.warn({ err: error, events: eventIds.length }, "queueing deliveries failed; the sweep will queue them"),
    );
  }
}

const isNoGroup = (error: unknown) => String(error).includes("NOGROUP");
