import type { CheckOutcome } from "@vigil/checks";
import type { AddressPolicySettings } from "@vigil/domain";
import type { CheckJobData } from "@vigil/queue";

/** What a check thread is started with: what every check of the agent runs with. */
export interface CheckThreadSettings {
  dnsServers: string[] | undefined;
  addressPolicy: AddressPolicySettings;
}

export interface ToCheckThread {
  id: number;
  job: CheckJobData;
}

/** `ready` once warmed up (with the warm-up checks that succeeded); then one answer per check. */
export type FromCheckThread = { ready: ThreadReady } | { id: number; outcome: CheckOutcome } | { id: number; error: string };

export interface ThreadReady {
  warmUpChecks: number;
}
