// HTTP load at a fixed request rate (an open loop), for latency below saturation. autocannon's
// `overallRate` is no such load: each connection sends its share of a second's requests back to back
// when the second starts and then waits, so every second begins with a burst of 32 requests and its
// latencies are those of a saturated server.
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { LoadFigures, LoadRequest } from "./load";
import type { Tail } from "./server-timing";

export type PacedFigures = LoadFigures & {
  /** How long the sender's event loop was blocked: a request due meanwhile was sent late, an answer read late. */
  loopDelay: Tail;
};

/** What the sender (paced-load-worker.ts) is given: the request with every body drawn beforehand. */
export interface PacedOrder {
  port: number;
  request: Omit<LoadRequest, "body">;
  bodies: string[] | undefined;
  /** Each request's own path, when they differ (drawn beforehand like the bodies); else request.path. */
  paths: string[] | undefined;
  connections: number;
  rate: number;
  warmUpSeconds: number;
  seconds: number;
  expect: number[];
}

/**
 * Sends `request` to the server on `port` `rate` times a second, evenly spaced, over at most
 * `connections` keep-alive connections: `warmUpSeconds` at the rate, then `seconds` measured. Each
 * latency runs from the moment the request was due, so a request that waits for a free connection
 * (or for the sender's event loop) counts its wait: the server being slow cannot hide by delaying the
 * next requests (no coordinated omission). `onMeasuring` is called when the first measured request is
 * due. Any error or status outside `expect` fails the run.
 */
export async function pacedLoad(
  port: number,
  request: LoadRequest,
  options: { connections: number; rate: number; warmUpSeconds?: number; seconds: number; expect?: number[]; onMeasuring?: () => void; pathOf?: (i: number) => string },
): Promise<PacedFigures> {
  const { connections, rate, warmUpSeconds = 0, seconds, expect = [200], onMeasuring, pathOf } = options;
  const { body, ...plain } = request;
  const total = Math.round(rate * warmUpSeconds) + Math.round(rate * seconds);
  const order: PacedOrder = {
    port,
    request: plain,
    bodies: body && Array.from({ length: total }, body),
    paths: pathOf && Array.from({ length: total }, (_, i) => pathOf(i)),
    connections,
    rate,
    warmUpSeconds,
    seconds,
    expect,
  };
  // A worker does not inherit the `--import tsx` hooks: it registers tsx's require hook itself.
  const boot = `require("tsx/cjs/api").register(); require(${JSON.stringify(path.join(__dirname, "paced-load-worker.ts"))});`;
  const worker = new Worker(boot, { eval: true, workerData: order });
  return new Promise<PacedFigures>((resolve, reject) => {
    worker.on("message", (message: "measuring" | PacedFigures) => {
      if (message === "measuring") onMeasuring?.();
      else resolve(message);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the paced load's worker exited (${code}) before its figures`)));
  });
}
