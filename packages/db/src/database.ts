import { mkdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "./generated/prisma/client";
import { registerDriverRows, type DriverRows } from "./driver-rows";
import { PGliteThread } from "./pglite-thread/client";
import { ForgetfulPool } from "./forgetful-pool";

/**
 * Where the data lives: a PostgreSQL server, or embedded PGlite in a folder (or in memory). On a server,
 * `directUrl` is a connection that is a session of its own (the server itself, or a pool in session mode),
 * for what needs one when `url` goes through a pool in transaction mode: migrations (the schema engine's
 * advisory lock). Unset, they use `url`. In memory, `image` is a file that Database's `saveImage` wrote: the
 * database starts as a copy of it (in under a second, where creating one and migrating it take about six: the
 * tests' databases).
 */
export type DatabaseTarget = { kind: "postgres"; url: string; directUrl?: string } | { kind: "pglite"; dataDir: null; image?: string } | { kind: "pglite"; dataDir: string };

/** Where a server's session-bound connections go: its direct URL where one is set. */
const sessionUrl = (target: { url: string; directUrl?: string }): string => target.directUrl ?? target.url;

export interface Database {
  readonly target: DatabaseTarget;
  readonly prisma: PrismaClient;
  /**
   * A database session of its own for Prisma's schema engine (migrations), ended by `end()`. The engine holds
   * an advisory lock while it migrates, and such a lock belongs to a session: through the shared pool its lock
   * and unlock could go over two connections, and the pool keeps its connections open, so the lock would stay
   * held and the next control plane to start would wait on it.
   */
  openSchemaSession(): { adapter: SqlMigrationAwareDriverAdapterFactory; end(): Promise<void> };
  /** Embedded only: writes the database's files to `file`, an image that a target's `image` opens a copy of. */
  saveImage?(file: string): Promise<void>;
  close(): Promise<void>;
}

export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === "pglite") return target.dataDir ? `embedded PGlite in ${target.dataDir}` : "embedded PGlite in memory";
  const url = new URL(target.url);
  return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

/** Connections a process keeps open to a PostgreSQL server when its deployment does not say (DATABASE_POOL_SIZE). */
export const DEFAULT_POOL_SIZE = 10;

export interface DatabaseOptions {
  /** Connections to a PostgreSQL server, kept open once opened; DEFAULT_POOL_SIZE when not given. */
  poolSize?: number;
  /** A pooled connection the server ended while idle (a restart, a fail-over, an operator's terminate). */
  onConnectionLost?(error: Error): void;
}

/**
 * How long a transaction waits for a connection before it fails (Prisma's maxWait, 2 s unless set). Transactions
 * queue for PGlite's one connection: 30 of 100 ms each already wait 3 s, and with 2 s the last of them would fail
 * (P2028, an internal error to the caller) rather than wait their turn. On PostgreSQL the pool's
 * CONNECT_TIMEOUT_MS bounds the wait in its queue first.
 */
export const TRANSACTION_MAX_WAIT_MS = 30_000;

export async function openDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Promise<Database> {
  const { adapter, rows, release, saveImage } = await connect(target, options);
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
  registerDriverRows(prisma, rows);
  return {
    target,
    prisma,
    openSchemaSession: () => {
      // PGlite is one session already.
      if (target.kind === "pglite") return { adapter, end: async () => {} };
      const { pool, end } = newPool(sessionUrl(target), 1);
      return { adapter: new PrismaPg(pool), end };
    },
    ...(saveImage && { saveImage }),
    close: async () => {
      await prisma.$disconnect();
      await release();
    },
  };
}

const statementNames = new Map<string, string>();

/**
 * The name each connection prepares a statement of `rows` under: PostgreSQL then parses and plans it once per
 * connection rather than on every call (a third of its CPU for a ListMonitors page). The statements are a few
 * constant texts, so the names stay few.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `vigil_rows_${statementNames.size + 1}`));
  return name;
}

/** How long getting a connection may take, from the pool or from the server. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A pool of `size` connections to `url`, and how to end it: `end()` resolves once every connection has closed. */
function newPool(url: string, size: number, onConnectionLost?: (error: Error) => void): { pool: pg.Pool; end(): Promise<void> } {
  const pool = new ForgetfulPool({
    connectionString: url,
    max: size,
    // A fixed-size pool: a connection once opened stays open. pg's default closes one idle for 10 s, and the
    // next burst of calls then waits while the pool opens up to `max` at once (a new PostgreSQL backend and
    // SCRAM authentication each), which made the API's slowest calls (docs/benchmarks.md, API throughput).
    min: size,
    // A server that does not answer (down behind a load balancer, a partition) fails the call after this instead of hanging it.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Lets the operating system notice a peer gone silently on an idle pooled connection.
    keepAlive: true,
  });
  // The pool drops a connection the server ended and opens another on the next query; without a listener
  // Node would treat the pool's "error" event as fatal and a PostgreSQL restart would stop the process.
  pool.on("error", (error) => onConnectionLost?.(error));
  const open = new Set<pg.Client>();
  pool.on("connect", (client) => {
    open.add(client);
    client.once("end", () => open.delete(client));
  });
  return {
    pool,
    // pool.end() resolves once it has asked every connection to end, not once they have: wait for the sockets,
    // so that whoever comes next (a shutdown, DROP DATABASE, a lock the session held) finds no session left.
    end: async () => {
      await pool.end();
      await Promise.all([...open].map((client) => new Promise((ended) => client.once("end", ended))));
    },
  };
}

async function connect(
  target: DatabaseTarget,
  options: DatabaseOptions,
): Promise<{ adapter: SqlMigrationAwareDriverAdapterFactory; rows: DriverRows; release(): Promise<void>; saveImage?(file: string): Promise<void> }> {
  if (target.kind === "postgres") {
    const { pool, end } = newPool(target.url, options.poolSize ?? DEFAULT_POOL_SIZE, options.onConnectionLost);
    return {
      adapter: new PrismaPg(pool),
      rows: async <T>(text: string, values: readonly unknown[]) => (await pool.query({ name: statementName(text), text, values: [...values] })).rows as T[],
      release: end,
    };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  const pglite = await PGliteThread.open(target.dataDir ? { dataDir: target.dataDir } : { dataDir: null, ...("image" in target && { image: target.image }) });
  return {
    // The adapter is typed for a PGlite, and asks only what the thread answers alike: query (rows as arrays, its
    // own parsers), exec, and transaction.
    adapter: new PrismaPGlite(pglite as unknown as PGlite),
    rows: async <T>(text: string, values: readonly unknown[]) => (await pglite.query<T>(text, [...values])).rows,
    release: () => pglite.close(),
    saveImage: (file) => pglite.saveImage(file),
  };
}
