import type { AddressPolicySettings } from "@vigil/domain/address-policy";

/** What a check thread is started with: what every check of the agent runs with. */
export interface CheckThreadSettings {
  dnsServers: string[] | undefined;
  addressPolicy: AddressPolicySettings;
}

/** What a check thread posts once warmed up: the warm-up checks that succeeded. */
export interface ThreadReady {
  warmUpChecks: number;
}
