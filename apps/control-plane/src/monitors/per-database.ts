import type { PrismaClient } from "@vigil/db";

/** The one `T` of this database in `made`, made on first use: what a process keeps about its database is shared by every reader. */
export function onePerDatabase<T>(made: WeakMap<PrismaClient, T>, prisma: PrismaClient, make: () => T): T {
  let one = made.get(prisma);
  if (one === undefined) made.set(prisma, (one = make()));
  return one;
}
