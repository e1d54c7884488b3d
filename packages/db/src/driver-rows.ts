import type { PrismaClient } from "./generated/prisma/client";

/**
 * Rows of one parameterised statement, read on the database's own driver (pg's pool, or PGlite) rather than
 * through Prisma. For the hottest reads only (GetMonitor, ListMonitors): building and interpreting Prisma's query
 * and converting its result cost more than the query (a ninth of a GetMonitor's CPU). The statement must give
 * every column the type its caller expects from both drivers alike: timestamps as `timestamptz` (a bare
 * `timestamp` would be read in the process's time zone by pg), json as objects, arrays as arrays.
 */
export type DriverRows = <T>(text: string, values: readonly unknown[]) => Promise<T[]>;

const byClient = new WeakMap<PrismaClient, DriverRows>();

export function registerDriverRows(prisma: PrismaClient, rows: DriverRows): void {
  byClient.set(prisma, rows);
}

/** The driver's rows for this client; for a client openDatabase did not make, the same statement through Prisma. */
export function driverRows(prisma: PrismaClient): DriverRows {
  return byClient.get(prisma) ?? (<T>(text: string, values: readonly unknown[]) => prisma.$queryRawUnsafe<T[]>(text, ...values));
}
