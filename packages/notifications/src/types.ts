import type {
  CertificateInfo,
  DeliveryEvent,
  FailureReason,
  StoredMonitorKind,
  MonitorStatus,
  ProviderConfigByType,
  ProviderType,
  RegionId,
  RegionReport,
} from "@vigil/domain";
import type { ProviderSettings } from "./settings";

/**
 * Everything a message says about an event, the same for every provider;
 * each provider only puts it into its own format (see text.ts for the words).
 */
export interface AlertMessage {
  /** Stable per event (the same on every retry and every channel): webhook-id, dedup. */
  id: string;
  event: DeliveryEvent;
  occurredAt: Date;
  monitor: { id: string; name: string; kind: StoredMonitorKind; target: string };
  /** The monitor-level status after the event; for a test, the monitor's status now. */
  status: MonitorStatus;
  /**
   * The incident the event belongs to (failure, degradation and recovery of one
   * outage share it: PagerDuty dedup_key, Opsgenie alias, OnCall alert_uid,
   * Google Chat thread, email thread). Null for a test message.
   */
  incident: { id: string; startedAt: Date; resolvedAt: Date | null } | null;
  /** Regions failing or degraded (alerts), or the regions checked (recovery). */
  regions: RegionReport[];
  /** The headline check: the first failing region's (alerts) or the newest healthy one's (recovery). */
  error: string | null;
  reason: FailureReason | null;
  statusCode: number | null;
  latencyMs: number | null;
  /** How long the incident lasted, on recovery. */
  durationMs: number | null;
  /** Where to look, built from PUBLIC_URL. */
  link: string;
  /**
   * A reminder of an open incident (the channel's reminderMinutes): its number,
   * 1 for the first; durationMs then says how long the incident has lasted.
   */
  reminder?: number | null;
  /** The single-use link that acknowledges the open incident (alerts and reminders). */
  ackLink?: string | null;
  /**
   * monitor.certificate_expiring: the certificate, the region whose check saw it, and the whole
   * days left until the chain's earliest expiry when it was seen. monitor.certificate_renewed: the
   * renewed certificate, with `renews` the chain expiry of the one that was warned about.
   */
  certificate?: (CertificateInfo & { region: RegionId; daysLeft: number; renews?: string }) | null;
  /**
   * slo.burn_rate and slo.burn_rate_ended: the objective whose budget burns (availability, or latency with its
   * threshold), its target in percent, the burn rates over 1 h and 6 h and the budget left over the SLO window.
   */
  slo?: { episodeId: string; objective: "availability" | "latency"; target: number; thresholdMs: number; burnRate1h: number | null; burnRate6h: number | null; budgetRemaining: number | null } | null;
  /** incident.acknowledged: who acknowledged the incident ("user:<email>", "api_key:<id>" or "link") and when. */
  acknowledgement?: { by: string; at: Date } | null;
}

/** A channel as providers see it: its validated block, secrets decrypted. */
export interface Channel<T extends ProviderType = ProviderType> {
  id: string;
  name: string;
  type: T;
  config: ProviderConfigByType[T];
  /** Webhook channels: the Standard Webhooks secret (whsec_...). */
  signingSecret?: string | null;
}

/** What a delivery attempt ended with; a failure is thrown as a DeliveryError. */
export interface Delivered {
  /** The provider's HTTP status; null where there is none (SMTP). */
  statusCode: number | null;
}

export interface SendContext {
  settings: ProviderSettings;
}

/** One notification provider: how it is configured and how it speaks its API. */
export interface Provider<T extends ProviderType = ProviderType> {
  type: T;
  /**
   * Deployment settings this provider needs that are not set (e.g.
   * TELEGRAM_BOT_TOKEN): channels of this type are refused with
   * failed_precondition naming them.
   */
  missingSettings(settings: ProviderSettings): string[];
  send(message: AlertMessage, channel: Channel<T>, context: SendContext): Promise<Delivered>;
}
