// One throughput loop of bench/checks.ts (the agent's check path, or the bare loop it is compared
// with) in a worker thread of its own. The two loops of a pair run the same undici, net and stream
// code; in one V8 isolate, whichever ran first would shape the other's optimised code (inline
// caches, inlining), and single runs moved by 10-20 points with the order. Each loop gets its own.
// Asked over postMessage for a segment of N seconds, it answers with the segment's Run (CPU included).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import net from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { Client, errors } from "undici";
import type { CheckJob } from "@vigil/checks";
import { AGENT_ENV, httpJob, runCheck, tcpJob } from "./engine";
import { runLoop, type Operation, type Run } from "./run-loop";

export type LoopName = "runCheck HTTP" | "bare HTTP" | "runCheck TCP" | "bare TCP";

export interface LoopWorkerData {
  loop: LoopName;
  httpPort: number;
  tcpPort: number;
  targetPid: number;
  concurrency: number;
}

/** A segment to run; with `profile`, a V8 CPU profile of it is written there. */
export interface SegmentRequest {
  seconds: number;
  profile?: string;
}

const data = workerData as LoopWorkerData;

async function check(job: CheckJob): Promise<void> {
  const outcome = await runCheck(job, AGENT_ENV);
  if (outcome.status === "error") throw new Error(outcome.error ?? "error");
}

function operation({ loop, httpPort, tcpPort }: LoopWorkerData): Operation {
  switch (loop) {
    case "runCheck HTTP": {
      const job = httpJob(httpPort, "/");
      return () => check(job);
    }
    case "runCheck TCP": {
      const job = tcpJob(tcpPort);
      return () => check(job);
    }
    case "bare HTTP": {
      // The same request the HTTP check sends (it adds this user-agent), over a Client of its own, so
      // a fresh connection each time, dropped once the body is read without waiting for it to close,
      // as the check does (with one shared error, as the check does: undici would otherwise build one
      // per client); nothing else (no timings, no assertions).
      const origin = `http://127.0.0.1:${httpPort}`;
      const userAgent = ["user-agent", "Vigil/0.1 (synthetic monitoring)"];
      const done = new errors.ClientDestroyedError();
      return async () => {
        const client = new Client(origin);
        try {
          const response = await client.request({ path: "/", method: "GET", headers: userAgent });
          const body = await response.body.text();
          if (response.statusCode !== 200 || body !== "ok") throw new Error(`HTTP ${response.statusCode}: ${body}`);
        } finally {
          void client.destroy(done);
        }
      };
    }
    case "bare TCP":
      // Connect, then close with a reset as the TCP check does.
      return () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect({ host: "127.0.0.1", port: tcpPort });
          socket.once("error", reject);
          socket.once("connect", () => {
            socket.resetAndDestroy();
            resolve();
          });
        });
  }
}

const run = operation(data);

parentPort!.on("message", (request: SegmentRequest) => {
  void (async () => {
    const session = request.profile === undefined ? undefined : new Session();
    if (session) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
    }
    const segment = await runLoop(data.concurrency, request.seconds, run, data.targetPid);
    if (session) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(request.profile!, JSON.stringify(profile));
      session.disconnect();
    }
    parentPort!.postMessage(segment satisfies Run);
  })();
});
