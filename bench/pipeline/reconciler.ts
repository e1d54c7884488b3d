// The control plane's side of bench/scheduling.ts, in a process of its own as in production (the
// control plane schedules, agents run the jobs): a CheckScheduler that reconciles the given monitors
// whenever the parent asks. Started by bench/scheduling.ts with an IPC channel; not run by hand.
import { performance } from "node:perf_hooks";
import type { MonitorRecord, RegionId } from "@vigil/domain";
import { connectRedis } from "@vigil/queue";
import { CheckScheduler } from "@vigil/control-plane/scheduling/scheduler";

export type ReconcilerRequest =
  | { type: "start"; redisUrl: string; prefix: string; defaultRegions: RegionId[]; records: MonitorRecord[] }
  | { type: "reconcile" }
  | { type: "stop" };

export type ReconcilerReply = { ok: true; upserted?: number; removed?: number; slots?: number; seconds?: number } | { ok: false; error: string };

let scheduler: CheckScheduler | undefined;
let records: MonitorRecord[] = [];
const redisConnections: ReturnType<typeof connectRedis>[] = [];

async function handle(request: ReconcilerRequest): Promise<ReconcilerReply> {
  switch (request.type) {
    case "start": {
      const redis = connectRedis(request.redisUrl, "vigil-control-plane");
      redisConnections.push(redis);
      scheduler = new CheckScheduler(redis, request.prefix, request.defaultRegions);
      records = request.records;
      return { ok: true };
    }
    case "reconcile": {
      const started = performance.now();
      const { upserted, removed, schedulers } = await scheduler!.reconcile(records);
      return { ok: true, upserted, removed, slots: schedulers.upserted, seconds: (performance.now() - started) / 1000 };
    }
    case "stop":
      await scheduler?.close();
      await Promise.all(redisConnections.map((redis) => redis.quit()));
      return { ok: true };
  }
}

process.on("message", (request: ReconcilerRequest) => {
  handle(request).then(
    (reply) => {
      process.send!(reply);
      if (request.type === "stop") process.disconnect();
    },
    (error: unknown) => process.send!({ ok: false, error: String((error as Error).stack ?? error) }),
  );
});
