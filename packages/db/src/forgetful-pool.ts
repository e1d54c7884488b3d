import pg from "pg";

/**
 * pg's Pool, but a query takes its connection the way `connect()` does.
 *
 * pg-pool's own `query()` opens a missing connection from inside the query's
 * callbacks, and pg's client keeps the callbacks of its `connect` for as long
 * as the connection lives (listeners it registers then share their scope). So
 * the first query of each connection stayed in memory with its whole answer,
 * on a pool that keeps its connections, for the life of the process: the
 * schedule reconciliation's read of every monitor (130 MB at 100,000 monitors),
 * marked again by every full garbage collection. Through `connect()` what a
 * connection keeps is a promise of itself.
 */
export class ForgetfulPool extends pg.Pool {
  // `never`: it stands for every overload of pg's query(), which a single signature cannot restate.
  override query(...args: unknown[]): never {
    // A callback's caller gets pg-pool's own behaviour; nothing in Vigil passes one.
    if (args.some((arg) => typeof arg === "function")) return (super.query as (...a: unknown[]) => never)(...args);
    return this.queryOnConnection(args[0] as string | pg.QueryConfig, args[1] as unknown[] | undefined) as never;
  }

  private async queryOnConnection(config: string | pg.QueryConfig, values: unknown[] | undefined): Promise<pg.QueryResult> {
    const client = await this.connect();
    // A connection handed out is its user's to watch (the pool listens only to idle ones): lost meanwhile, it
    // emits an error that nobody else would catch, and the query fails with it.
    let failure: Error | undefined;
    const onError = (error: Error) => void (failure ??= error);
    client.on("error", onError);
    try {
      return await client.query(config, values);
    } catch (error) {
      failure ??= error as Error;
      throw error;
    } finally {
      client.removeListener("error", onError);
      // As pg-pool does: a connection whose query failed is not handed out again.
      client.release(failure);
    }
  }
}
