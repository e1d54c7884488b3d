import pg from "pg";
import { MONITOR_CHANGES_CHANNEL, parseMonitorChange, type MonitorChange, type MonitorChanges } from "./monitor-changes";

/** How long a lost feed waits before it connects again. */
const RECONNECT_MS = 1_000;
/** A fence not answered in this long means the feed's connection is not to be trusted: it is dropped and opened again. */
const FENCE_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** How the listening connection is named to the server (pg_stat_activity). */
export const CHANGE_FEED_APPLICATION_NAME = "vigil-monitor-changes";

interface Fence {
  promise: Promise<boolean>;
  settle(caughtUp: boolean): void;
}

/** The fence: any statement does, and this one tells which server process answered it. */
async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return rows[0]!.pid;
}

function newFence(): Fence {
  let settle!: (caughtUp: boolean) => void;
  const promise = new Promise<boolean>((resolve) => (settle = resolve));
  return { promise, settle };
}

/**
 * The monitor changes of a PostgreSQL server, heard on a connection of this
 * process's own that LISTENs (the pooled connections that write never do).
 * Another control plane's commit reaches this process a moment after it
 * answered its caller, so a reader first asks `caughtUp()`: a fence, a
 * statement on the listening connection. PostgreSQL sends a session every
 * notification it was signalled before it answers that session's next
 * statement, and a notifier signals at commit, before its own caller hears
 * of the commit: once the fence answers, every change committed before the
 * reader asked has been told.
 * That holds only if the fence reached the session that listens, which a
 * pool in transaction mode (PgBouncer's) does not promise: the fence asks
 * which server process answered it, and a feed whose fence went elsewhere
 * stops for good and leaves every read to the database.
 * Readers that ask while a fence is out share the next one, so under load a
 * fence costs a round trip per batch of calls rather than a statement per
 * call. The connection opens when the first listener subscribes. While it is
 * lost every reader is told to ask the database; once it is back, listeners
 * hear that every monitor may have changed, as changes in between went
 * unheard.
 */
export class ServerMonitorChanges implements MonitorChanges {
  private readonly listeners = new Set<(change: MonitorChange | null) => void>();
  private client: pg.Client | null = null;
  private live = false;
  private closed = false;
  private reconnect: NodeJS.Timeout | undefined;
  /** The server process of the session that listens: a fence answered by any other proves nothing. */
  private listeningPid = 0;
  /** The fence that goes out when the one in flight answers, shared by every reader that asks meanwhile. */
  private waiting: Fence | null = null;
  private inFlight: Fence | null = null;

  constructor(
    private readonly url: string,
    private readonly onLost: (error: Error) => void = () => {},
  ) {}

  subscribe(listener: (change: MonitorChange | null) => void): void {
    this.listeners.add(listener);
    if (!this.client && !this.closed && this.reconnect === undefined) void this.connect();
  }

  caughtUp(): Promise<boolean> {
    if (!this.live) return Promise.resolve(false);
    const fence = (this.waiting ??= newFence());
    if (!this.inFlight) this.sendFence();
    return fence.promise;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: CHANGE_FEED_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    this.client = client;
    client.on("notification", ({ channel, payload }) => {
      if (channel === MONITOR_CHANGES_CHANNEL) this.tell(parseMonitorChange(payload ?? ""));
    });
    client.on("error", (error) => this.lose(client, error));
    client.on("end", () => this.lose(client, new Error("the server ended the connection")));
    try {
      await client.connect();
      await client.query(`LISTEN ${MONITOR_CHANGES_CHANNEL}`);
      this.listeningPid = await backendPid(client);
    } catch (error) {
      this.lose(client, error as Error);
      return;
    }
    if (this.client !== client) {
      // Closed, or lost, while it connected.
      void client.end().catch(() => {});
      return;
    }
    // Changes committed before LISTEN took effect were never told.
    this.tell(null);
    this.live = true;
  }

  private sendFence(): void {
    const fence = this.waiting!;
    const client = this.client!;
    this.waiting = null;
    this.inFlight = fence;
    const timer = setTimeout(() => this.lose(client, new Error(`a fence was not answered within ${FENCE_TIMEOUT_MS} ms`)), FENCE_TIMEOUT_MS).unref();
    backendPid(client).then(
      (pid) => {
        const listening = pid === this.listeningPid;
        if (!listening) {
          const error = new Error("the fence reached another session than the one that listens (a pool in transaction mode?); this process stops listening");
          this.lose(client, error, { again: false });
        }
        this.fenceAnswered(fence, listening, timer);
      },
      () => this.fenceAnswered(fence, false, timer),
    );
  }

  private fenceAnswered(fence: Fence, caughtUp: boolean, timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    fence.settle(caughtUp && this.live);
    if (this.inFlight !== fence) return;
    this.inFlight = null;
    if (this.waiting) this.sendFence();
  }

  /** `again`: connect again after a while; not where the connection can never be a session of its own. */
  private lose(client: pg.Client, error: Error, { again } = { again: true }): void {
    if (this.client !== client) return;
    this.drop();
    void client.end().catch(() => {});
    if (this.closed) return;
    this.onLost(error);
    this.tell(null);
    if (!again) {
      this.closed = true;
      return;
    }
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      void this.connect();
    }, RECONNECT_MS).unref();
  }

  /** Forgets the connection: readers are told to ask the database until another is listening. */
  private drop(): void {
    this.client = null;
    this.live = false;
    for (const fence of [this.inFlight, this.waiting]) fence?.settle(false);
    this.inFlight = this.waiting = null;
  }

  private tell(change: MonitorChange | null): void {
    for (const listener of this.listeners) listener(change);
  }
}
