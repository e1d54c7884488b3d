/**
 * A check thread (see check-threads.ts): runs the checks the agent's main
 * thread hands it, on an event loop that does nothing else. Piscina hands it
 * checks once the exported promise of the handler resolves: after the warm-up.
 */
import { parentPort, workerData } from "node:worker_threads";
import { runCheck, warmUpChecks, type CheckOutcome } from "@vigil/checks";
import { AddressPolicy } from "@vigil/domain/address-policy";
import type { CheckJobData } from "@vigil/queue";
import type { CheckThreadSettings, ThreadReady } from "./check-thread-messages";
import { oneStartPerTurn } from "./one-start-per-turn";

const settings = workerData as CheckThreadSettings;
const env = { dnsServers: settings.dnsServers, addressPolicy: new AddressPolicy(settings.addressPolicy) };
const startInTurn = oneStartPerTurn((start: () => void) => start());
const run = (job: CheckJobData) => new Promise<CheckOutcome>((resolve) => startInTurn(() => resolve(runCheck(job, env))));

export default warmUpChecks().then((warmUpChecks) => {
  parentPort!.postMessage({ warmUpChecks } satisfies ThreadReady);
  return run;
});
