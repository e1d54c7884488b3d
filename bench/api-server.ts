// The server under test, started by bench/api.ts in its own process so that the load generator
// never shares its event loop (or, for PGlite, the database's thread) with it.
import { openDatabase, type DatabaseTarget } from "@vigil/db";
import { createLogger } from "../apps/control-plane/src/logger";
import { startApiServer } from "../apps/control-plane/src/server";

async function main(): Promise<void> {
  const target = JSON.parse(process.env.BENCH_DATABASE ?? "") as DatabaseTarget;
  const db = await openDatabase(target);
  // Request logging would cost more than the handlers being measured.
  const api = await startApiServer({ prisma: db.prisma, logger: createLogger("warn"), port: 0, host: "127.0.0.1" });
  process.send?.({ port: api.address().port });

  process.once("disconnect", () => {
    void (async () => {
      await api.close();
      await db.close();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
