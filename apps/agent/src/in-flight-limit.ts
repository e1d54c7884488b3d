import { readFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { CHECK_RULES } from "@vigil/domain/check-rules";
import type { Logger } from "@vigil/logging";

/**
 * How many checks one agent holds in flight. Checks wait on the network, not
 * the CPU, so what really bounds them is one socket each (the open-file limit)
 * and the memory each may hold; CONCURRENCY overrides the derived value.
 * docs/checks.md#checks-in-flight explains the figures.
 */

/**
 * The most checks in flight, derived or set: above it BullMQ's per-job work
 * (one lock renewal list, one fetch per job) and a wave of results at once
 * cost more than an agent should take on alone; add agents instead.
 */
export const MAX_IN_FLIGHT = 10_000;

/**
 * File descriptors kept for everything but checks: Node's own (about 20),
 * the Redis connections, up to 64 connections to the health port, OTLP
 * exports and the log.
 */
export const RESERVED_FILES = 256;

/**
 * Memory one check may hold: the response body it reads (at most
 * CHECK_RULES.maxBodyBytes) and its own state (25-52 KiB of RSS for a hanging HTTP
 * check in bench/outage-storm.ts runs; 64 KiB leaves room for redirects and headers).
 */
export const CHECK_MEMORY_BYTES = CHECK_RULES.maxBodyBytes + 64 * 1024;

/** Share of the heap limit that checks may fill; the rest is the agent's own (queue, metrics, exports). */
export const HEAP_SHARE_FOR_CHECKS = 0.75;

/** Assumed where /proc/self/limits cannot be read (not Linux): the usual soft limit. */
const UNKNOWN_OPEN_FILE_LIMIT = 1024;

export interface ProcessLimits {
  /** Soft RLIMIT_NOFILE of this process (Node raises it to the hard limit at start); Infinity when unlimited. */
  openFiles: number;
  /** V8's heap size limit (--max-old-space-size, else derived by V8 from the machine's or container's memory). */
  heapBytes: number;
}

export interface InFlightLimit {
  limit: number;
  /** What set the limit. */
  boundBy: "CONCURRENCY" | "open_files" | "memory" | "cap";
  /** Checks the open-file limit allows, and the memory. */
  byOpenFiles: number;
  byMemory: number;
}

/** The soft "Max open files" of a /proc/<pid>/limits text; undefined when it has none. */
export function openFileLimitOf(procLimits: string): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(procLimits)?.[1];
  if (soft === undefined) return undefined;
  return soft === "unlimited" ? Infinity : Number(soft);
}

/** This process's limits. */
export function processLimits(): ProcessLimits {
  let openFiles: number | undefined;
  try {
    openFiles = openFileLimitOf(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    // Not Linux: assume the common default below.
  }
  return { openFiles: openFiles ?? UNKNOWN_OPEN_FILE_LIMIT, heapBytes: getHeapStatistics().heap_size_limit };
}

/** The in-flight limit: `explicit` (CONCURRENCY) when set, else the least of what files, memory and MAX_IN_FLIGHT allow. */
export function chooseInFlightLimit(explicit: number | undefined, limits: ProcessLimits): InFlightLimit {
  const byOpenFiles = Math.max(1, Math.min(MAX_IN_FLIGHT, limits.openFiles - RESERVED_FILES));
  const byMemory = Math.max(1, Math.min(MAX_IN_FLIGHT, Math.floor((limits.heapBytes * HEAP_SHARE_FOR_CHECKS) / CHECK_MEMORY_BYTES)));
  if (explicit !== undefined) return { limit: explicit, boundBy: "CONCURRENCY", byOpenFiles, byMemory };
  const limit = Math.min(byOpenFiles, byMemory);
  const boundBy = limit === MAX_IN_FLIGHT ? "cap" : limit === byOpenFiles ? "open_files" : "memory";
  return { limit, boundBy, byOpenFiles, byMemory };
}

/** Logs the limit and why; warns when CONCURRENCY asks for more checks than the open-file limit leaves sockets for. */
export function logInFlightLimit(chosen: InFlightLimit, limits: ProcessLimits, logger: Logger): void {
  const details = {
    inFlightLimit: chosen.limit,
    boundBy: chosen.boundBy,
    byOpenFiles: chosen.byOpenFiles,
    byMemory: chosen.byMemory,
    // JSON has no Infinity.
    openFileLimit: Number.isFinite(limits.openFiles) ? limits.openFiles : "unlimited",
    reservedFiles: RESERVED_FILES,
    heapLimitMiB: Math.round(limits.heapBytes / 2 ** 20),
    checkMemoryKiB: CHECK_MEMORY_BYTES / 1024,
    cap: MAX_IN_FLIGHT,
  };
  if (chosen.boundBy === "CONCURRENCY" && chosen.limit > chosen.byOpenFiles) {
    logger.warn(details, "CONCURRENCY is above what the open-file limit leaves for checks: checks may fail to open sockets (raise ulimit -n)");
  } else {
    logger.info(details, "checks in flight limited");
  }
}
