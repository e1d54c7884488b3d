/**
 * A check thread (see check-threads.ts): runs the checks the agent's main
 * thread hands it, on an event loop that does nothing else, and answers with
 * their outcomes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { runCheck, warmUpChecks } from "@vigil/checks";
import { AddressPolicy } from "@vigil/domain";
import type { CheckThreadSettings, FromCheckThread, ToCheckThread } from "./check-thread-messages";
import { oneStartPerTurn } from "./one-start-per-turn";

const settings = workerData as CheckThreadSettings;
const env = { dnsServers: settings.dnsServers, addressPolicy: new AddressPolicy(settings.addressPolicy) };
const port = parentPort!;
const answer = (message: FromCheckThread) => port.postMessage(message);

const start = oneStartPerTurn(({ id, job }: ToCheckThread) =>
  runCheck(job, env).then(
    (outcome) => answer({ id, outcome }),
    (error: unknown) => answer({ id, error: error instanceof Error ? error.message : String(error) }),
  ),
);

void warmUpChecks().then((warmUpChecks) => {
  port.on("message", start);
  answer({ ready: { warmUpChecks } });
});
