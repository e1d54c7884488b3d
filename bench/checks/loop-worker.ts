// One throughput loop of bench/checks.ts (the agent's check path, or the bare loop it is compared
// with) in a worker thread of its own. The two loops of a pair run the same node:http, net and stream
// code; in one V8 isolate, whichever ran first would shape the other's optimised code (inline
// caches, inlining), and single runs moved by 10-20 points with the order. Each loop gets its own.
// Asked over postMessage for a segment of N seconds, it answers with the segment's Run (CPU included).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import type { CheckJob } from "@vigil/checks";
import { AGENT_ENV, grpcJob, httpJob, runCheck, tcpJob } from "./engine";
import { runLoop, type Operation, type Run } from "./run-loop";

export type LoopName = "runCheck HTTP" | "bare HTTP" | "runCheck TCP" | "bare TCP" | "runCheck gRPC" | "bare gRPC";

export interface LoopWorkerData {
  loop: LoopName;
  httpPort: number;
  tcpPort: number;
  grpcPort: number;
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

/** grpc.health.v1.HealthCheckRequest with an empty service, framed for gRPC: not compressed, 0 bytes long. */
const EMPTY_HEALTH_REQUEST = Buffer.alloc(5);

function operation({ loop, httpPort, tcpPort, grpcPort }: LoopWorkerData): Operation {
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
      // The same request the HTTP check sends (its user-agent, host and Connection: close) with the
      // same client, node:http, over a connection of its own, dropped once the body is read without
      // waiting for it to close, as the check does; nothing else (no timings, no assertions).
      const headers = ["user-agent", "Vigil/0.1 (synthetic monitoring)", "host", `127.0.0.1:${httpPort}`, "connection", "close"];
      return () =>
        new Promise<void>((resolve, reject) => {
          const request = http.request({ path: "/", headers, createConnection: () => net.connect({ host: "127.0.0.1", port: httpPort }) }, (response) => {
            let body = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => (body += chunk));
            response.on("end", () => {
              request.destroy();
              if (response.statusCode === 200 && body === "ok") resolve();
              else reject(new Error(`HTTP ${response.statusCode}: ${body}`));
            });
          });
          request.on("error", reject);
          request.end();
        });
    }
    case "runCheck gRPC": {
      const job = grpcJob(grpcPort);
      return () => check(job);
    }
    case "bare gRPC":
      // The same call the gRPC check makes (Health/Check of the whole server) with node:http2 alone, over
      // a session of its own, destroyed once the trailers say OK; nothing else (no timings, no protobuf
      // decoding, no client library).
      return () =>
        new Promise<void>((resolve, reject) => {
          const session = http2.connect(`http://127.0.0.1:${grpcPort}`);
          session.once("error", reject);
          const stream = session.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/grpc", te: "trailers" });
          stream.on("data", () => {});
          stream.once("error", reject);
          stream.once("trailers", (trailers) => {
            session.destroy();
            if (trailers["grpc-status"] === "0") resolve();
            else reject(new Error(`grpc-status ${String(trailers["grpc-status"])}`));
          });
          stream.end(EMPTY_HEALTH_REQUEST);
        });
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
