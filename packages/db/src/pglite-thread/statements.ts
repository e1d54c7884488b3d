/**
 * Statements prepared once per text on the embedded database's thread.
 *
 * PGlite's `query` parses and plans its text on every call, in six passes through PostgreSQL's loop (parse,
 * describe, bind, describe, execute, sync): for a primary-key read that is ~0.25 ms of the thread's time, where a
 * statement prepared under a name of its own takes one pass (bind, execute, sync) and ~0.1 ms, and leaves less
 * garbage to collect. The texts are the control plane's own (Prisma's and its raw statements), a few hundred at
 * most; the least recently used are closed past STATEMENTS_KEPT so that texts that vary (lists of ids of any
 * length) cannot grow the database's memory without bound.
 */
import { LRUCache } from "lru-cache";
import { parse, protocol, type PGlite, type QueryOptions } from "@electric-sql/pglite";
import type { ThreadResults } from "./messages";

const { serialize } = protocol;

/** Statements kept prepared; each holds its parse tree and plan in the database's memory (~20 KB for a read of one table). */
export const STATEMENTS_KEPT = 256;

type BackendMessage = Awaited<ReturnType<PGlite["execProtocol"]>>["messages"][number];

interface Prepared {
  name: string;
  /** The parameters' types, as PostgreSQL inferred them: how each value is written. */
  parameterTypes: number[];
  /** The rows' description (absent for a statement without rows), given once rather than asked on each call. */
  rows: BackendMessage | undefined;
}

/** Rows as arrays of PostgreSQL's text: the calling thread parses them (values.ts). */
const AS_TEXT: QueryOptions = { rowMode: "array" };

export class Statements {
  private named = 0;
  /** Close messages for the statements dropped from the cache, sent before the next statement is prepared. */
  private closing: Uint8Array[] = [];
  private readonly prepared = new LRUCache<string, Prepared>({
    max: STATEMENTS_KEPT,
    dispose: ({ name }) => this.closing.push(serialize.close({ type: "S", name })),
  });

  constructor(private readonly db: PGlite) {}

  /**
   * Runs `text` with `values`, preparing it the first time. Callers run one statement at a time (thread.ts): the
   * prepare and the run are two passes, and nothing may come between a name's Parse and its cache entry.
   * `inTransaction`: the files are synced at the transaction's end rather than after each statement.
   */
  async run(text: string, values: readonly unknown[], inTransaction: boolean): Promise<ThreadResults> {
    const statement = this.prepared.get(text) ?? (await this.prepare(text));
    const bound = serialize.bind({ statement: statement.name, values: values.map((value, i) => this.write(value, statement.parameterTypes[i]!)) });
    const { messages } = await this.db.execProtocol(Buffer.concat([bound, serialize.execute({}), serialize.sync()]), { syncToFs: !inTransaction });
    const described = statement.rows ? [statement.rows, ...messages] : messages;
    return parse.parseResults(described, this.db.parsers, AS_TEXT)[0] as unknown as ThreadResults;
  }

  /**
   * Runs a script of statements (migrations, DDL) unprepared, and forgets every prepared statement: the script may
   * have changed the tables that their rows' descriptions name.
   */
  script(text: string): Promise<ThreadResults[]> {
    this.prepared.clear();
    return this.db.exec(text, AS_TEXT) as unknown as Promise<ThreadResults[]>;
  }

  private async prepare(text: string): Promise<Prepared> {
    const name = `vigil_${++this.named}`;
    // Room is made before the Parse, so that the database never holds more than STATEMENTS_KEPT.
    if (this.prepared.size >= STATEMENTS_KEPT) this.prepared.pop();
    const closing = this.closing;
    this.closing = [];
    const { messages } = await this.db.execProtocol(
      Buffer.concat([...closing, serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const prepared: Prepared = {
      name,
      parameterTypes: parse.parseDescribeStatementResults(messages),
      rows: messages.find((message) => message.name === "rowDescription"),
    };
    this.prepared.set(text, prepared);
    return prepared;
  }

  /** A value as PGlite's own `query` writes it: by its parameter's type, else as its string. */
  private write(value: unknown, type: number): string | null {
    if (value === null || value === undefined) return null;
    const write = this.db.serializers[type];
    return write ? write(value) : String(value);
  }
}
