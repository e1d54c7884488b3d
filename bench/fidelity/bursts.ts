// What a check thread reports when it is handed many checks at once: the main thread was held up and posts what
// piled up, or a slot's monitors fall due in the same millisecond (bench:fidelity saw up to 13 at once at 300
// triggered checks/s). One check thread as the agent starts it (apps/agent/dist), HTTP checks of a loopback server
// in this process that answers after 10 ms; the connect phase on loopback is the kernel's handshake, tens of
// microseconds, so what a check reports beyond that is time its thread took to read the connect event. Each
// round hands over BENCH_BURST (10) checks together and waits for them; the baseline, in the same run, hands the
// same number one round at a time. BENCH_ROUNDS (100) rounds each, BENCH_GAP_MS (50) apart.
// Usage: pnpm -s build && node --import tsx bench/fidelity/bursts.ts. Prints a Markdown table.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseMonitorConfig } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import type { CheckThreads as CheckThreadsType } from "../../apps/agent/src/check-threads";
import { percentile, sortedCopy } from "../pipeline/common";
import { assertBuilt } from "../support/built";
import { ROOT } from "../support/doc";

const BURST = Number(process.env.BENCH_BURST ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 50);

assertBuilt("apps/agent", "packages/checks");
const { CheckThreads } = require(path.join(ROOT, "apps/agent/dist/check-threads.js")) as { CheckThreads: typeof CheckThreadsType };

const cell = (values: number[]) => {
  const sorted = sortedCopy(values);
  return [50, 99, 100].map((p) => percentile(sorted, p).toFixed(2)).join(" / ");
};

async function main(): Promise<void> {
  const server = http.createServer((_request, response) => setTimeout(() => response.end("ok"), 10));
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const job: CheckJobData = {
    monitorId: "00000000-0000-4000-8000-000000000001",
    kind: "http",
    config: parseMonitorConfig("http", { name: "burst", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, periodicity: "30s", retry: 0, timeout: 5_000 }),
    trigger: "manual",
  };
  const threads = await CheckThreads.start(1, { dnsServers: undefined, addressPolicy: { allowPrivateTargets: true, allowedTargetCidrs: [] } }, createLogger("silent", "bench"));
  /** connectMs by position in the round: checks handed over `together` at once, or one per round. */
  const measure = async (together: number): Promise<number[][]> => {
    const byPosition: number[][] = Array.from({ length: BURST }, () => []);
    for (let round = 0; round < (ROUNDS * BURST) / together; round++) {
      const outcomes = await Promise.all(Array.from({ length: together }, () => threads.run(job)));
      outcomes.forEach((outcome, i) => byPosition[(round * together + i) % BURST]!.push(outcome.timing.connectMs!));
      await sleep(GAP_MS);
    }
    return byPosition;
  };
  const alone = (await measure(1)).flat();
  const together = await measure(BURST);
  await threads.close();
  server.close();
  console.log(`connectMs reported by one check thread, ms, p50 / p99 / max (${ROUNDS * BURST} checks a row, loopback):\n`);
  console.log("| Checks handed over | Position in the burst | connectMs |");
  console.log("|---|---|---|");
  console.log(`| one at a time | | ${cell(alone)} |`);
  for (const position of [1, Math.ceil(BURST / 2), BURST]) console.log(`| ${BURST} together | ${position} | ${cell(together[position - 1]!)} |`);
  console.log(`| ${BURST} together | all | ${cell(together.flat())} |`);
}

void main();
