// Where Redis spends its time during bench/scheduling.ts's window, from the server's own counters
// (INFO cpu and commandstats): the CPU of its main thread and the Lua script calls (BullMQ's
// commands; commands they run are counted apart too).
// The counters are the server's: on a Redis shared with other work they include that work.
import type { RedisConnection } from "@vigil/queue";

export interface RedisCounters {
  /** CPU seconds of the main thread (user + system). */
  mainCpu: number;
  /** Calls and microseconds per command (`evalsha` for BullMQ's scripts; the scripts' own commands under their names). */
  commands: Map<string, { calls: number; usec: number }>;
}

const field = (info: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);

export async function redisCounters(redis: RedisConnection): Promise<RedisCounters> {
  const info = await redis.info("everything");
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const [, name, calls, usec] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) commands.set(name!, { calls: Number(calls), usec: Number(usec) });
  return {
    mainCpu: field(info, "used_cpu_user") + field(info, "used_cpu_sys"),
    commands,
  };
}

/** What Redis did per scheduled run between two readings. */
export interface RedisPerRun {
  /** Microseconds of main-thread CPU per run. */
  mainCpuUs: number;
  scriptCalls: number;
  /** Microseconds per script call, commands inside it included. */
  scriptCallUs: number;
  /** Of those, microseconds in the scripts' Redis commands (the rest is Lua and the call itself). */
  scriptCommandsUs: number;
  /** The workers' blocking waits for a job (BZPOPMIN on the queue's marker) per run. */
  waits: number;
}

export function perRun(before: RedisCounters, after: RedisCounters, runs: number): RedisPerRun {
  const delta = (name: string) => {
    const a = after.commands.get(name);
    const b = before.commands.get(name);
    return { calls: (a?.calls ?? 0) - (b?.calls ?? 0), usec: (a?.usec ?? 0) - (b?.usec ?? 0) };
  };
  const scripts = delta("evalsha");
  // Redis counts the commands a script runs under their own names as well. Here everything but the
  // scripts, the workers' blocking waits, the reconciliation's reads of the scheduler list and
  // introspection runs inside a script (the reconciliation's HGETALLs too, 1 per slot every 300 s:
  // under 1 % of these).
  const outside = new Set(["evalsha", "eval", "bzpopmin", "zrevrange", "info", "ping", "client|setname", "client|info", "select", "config|get", "config|set"]);
  let scriptCommandsUsec = 0;
  for (const name of after.commands.keys()) if (!outside.has(name)) scriptCommandsUsec += delta(name).usec;
  return {
    mainCpuUs: ((after.mainCpu - before.mainCpu) * 1e6) / runs,
    scriptCalls: scripts.calls / runs,
    scriptCallUs: scripts.usec / scripts.calls,
    scriptCommandsUs: scriptCommandsUsec / scripts.calls,
    waits: delta("bzpopmin").calls / runs,
  };
}
