import type { CheckOutcome } from "@vigil/checks";
import type { AddressPolicySettings } from "@vigil/domain";
import type { CheckJobData } from "@vigil/queue";

/** What a check thread is started with: what every check of the agent runs with. */
export interface CheckThreadSettings {
  dnsServers: string[] | undefined;
  addressPolicy: AddressPolicySettings;
  /** CHECK_THREAD_NICE: the thread's nice value, where the agent may set it. */
  nice: number;
  /** CHECK_THREAD_RT_PRIORITY: the thread's real-time priority (0 for none), where the agent may set it. */
  rtPriority: number;
}

export interface ToCheckThread {
  id: number;
  job: CheckJobData;
}

/**
 * `ready` once warmed up (with the warm-up checks that succeeded, and why the thread keeps the process's priority
 * where its nice value or real-time priority was refused); then one answer per check.
 */
export type FromCheckThread = { ready: ThreadReady } | { id: number; outcome: CheckOutcome } | { id: number; error: string };

export interface ThreadReady {
  warmUpChecks: number;
  niceRefused?: string;
  rtPriorityRefused?: string;
}
