import DataLoader from "dataloader";
import { v7 as uuidv7 } from "uuid";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Prisma, PrismaClient } from "@vigil/db";
import { ACK_LINK_KEPT_DAYS, ACK_LINK_VALID_HOURS, ACKNOWLEDGED_EVENT, ACKNOWLEDGEMENT_PROVIDERS } from "@vigil/domain";
import { newLinkToken, tokenHashOf } from "../accounts/invitations";
import { notFound } from "../errors";
import type { EventDetails } from "./message";
import { gatherInFlight } from "./delivery-store";
import { insertDeliveries, insertEvents, type EventRow } from "./record";

type Tx = Prisma.TransactionClient;
export type IncidentRow = NonNullable<Awaited<ReturnType<PrismaClient["incident"]["findFirst"]>>>;

const HOUR_MS = 3_600_000;
export const RESOLVED = "the incident is resolved: there is nothing left to acknowledge";

/** Where an alert's single-use acknowledgement link leads. */
export const ackLinkPath = (token: string) => `/v1/incidents/ack/${token}`;

/** What a link in an alert message can still do. */
export type LinkState =
  | { state: "usable"; incident: IncidentRow; monitorName: string }
  | { state: "unknown" }
  | { state: "used"; incident: IncidentRow }
  | { state: "expired"; incident: IncidentRow };

/**
 * Acknowledging incidents (docs/alerting.md, "Acknowledging"): by API call or
 * by the single-use link each alert of an open incident carries. The first
 * acknowledgement is kept; it stops the incident's reminders and is sent as
 * incident.acknowledged to the channels that act on it.
 */
export class Acknowledgements {
  constructor(
    private readonly prisma: PrismaClient,
    /** Queues the first attempt at an event's deliveries (Deliveries.enqueue). */
    private readonly enqueue: (eventIds: readonly string[]) => Promise<void>,
    private readonly publicUrl: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The links asked for by the messages in flight, made by one statement
   * (every message of an outage asks for one): only an open incident gets one.
   */
  private readonly links = new DataLoader<string, string | null>(async (incidentIds) => {
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + ACK_LINK_VALID_HOURS * HOUR_MS);
    const ids = incidentIds.map(() => uuidv7());
    const tokens = incidentIds.map(() => newLinkToken());
    const made = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO ack_links (id, incident_id, token_hash, created_at, expires_at)
      SELECT l.id, i.id, l.token_hash, ${now}::timestamp(3), ${expiresAt}::timestamp(3)
      FROM unnest(${ids}::text[], ${[...incidentIds]}::text[], ${tokens.map(tokenHashOf)}::text[]) AS l(id, incident_id, token_hash)
      JOIN incidents AS i ON i.id = l.incident_id
      WHERE i.resolved_at IS NULL AND i.acknowledged_at IS NULL
      RETURNING ack_links.id`;
    const madeIds = new Set(made.map((row) => row.id));
    const base = this.publicUrl.replace(/\/+$/, "");
    return ids.map((id, i) => (madeIds.has(id) ? `${base}${ackLinkPath(tokens[i]!)}` : null));
  }, gatherInFlight);

  /**
   * Acknowledges the incident as `by` (the audit log's name of the caller).
   * An incident acknowledged already is answered as it is (the first
   * acknowledgement kept); a resolved one is failed_precondition.
   * @param workspaceId the caller's workspace; null for a link, whose token names the incident
   */
  async acknowledge(incidentId: string, workspaceId: string | null, by: string): Promise<IncidentRow> {
    const where = { id: incidentId, ...(workspaceId === null ? {} : { workspaceId }) };
    const { incident, eventIds } = await this.prisma.$transaction(async (tx) => {
      const now = this.clock();
      const changed = await tx.incident.updateMany({ where: { ...where, resolvedAt: null, acknowledgedAt: null }, data: { acknowledgedAt: now, acknowledgedBy: by } });
      const incident = await tx.incident.findFirst({ where });
      if (!incident) throw notFound(`incident ${incidentId}`);
      if (changed.count === 0) {
        if (incident.acknowledgedAt) return { incident, eventIds: [] };
        throw new ConnectError(RESOLVED, Code.FailedPrecondition);
      }
      return { incident, eventIds: await recordAcknowledgement(tx, incident, now, by) };
    });
    await this.enqueue(eventIds);
    return incident;
  }

  /**
   * A new single-use link that acknowledges the incident, for one message
   * (only its token's hash is kept); null once the incident is resolved or
   * acknowledged, when a link could do nothing.
   */
  newLink(incidentId: string): Promise<string | null> {
    return this.links.load(incidentId);
  }

  /** Deletes links expired more than ACK_LINK_KEPT_DAYS ago (the hourly pruning); returns how many. */
  async pruneLinks(): Promise<number> {
    const before = new Date(this.clock().getTime() - ACK_LINK_KEPT_DAYS * 24 * HOUR_MS);
    const { count } = await this.prisma.ackLink.deleteMany({ where: { expiresAt: { lt: before } } });
    return count;
  }

  /** What the link of `token` can do now. */
  async linkState(token: string): Promise<LinkState> {
    const link = await this.prisma.ackLink.findUnique({
      where: { tokenHash: tokenHashOf(token) },
      include: { incident: { include: { monitor: { select: { name: true } } } } },
    });
    if (!link) return { state: "unknown" };
    const { monitor, ...incident } = link.incident;
    if (link.usedAt) return { state: "used", incident };
    if (link.expiresAt <= this.clock() || incident.resolvedAt) return { state: "expired", incident };
    return { state: "usable", incident, monitorName: monitor.name };
  }

  /**
   * Spends the link and acknowledges its incident; answers the link's state
   * before, so that two clicks at once acknowledge once and the second is
   * told the link was used.
   */
  async acknowledgeByLink(token: string): Promise<LinkState> {
    const before = await this.linkState(token);
    if (before.state !== "usable") return before;
    const spent = await this.prisma.ackLink.updateMany({
      where: { tokenHash: tokenHashOf(token), usedAt: null },
      data: { usedAt: this.clock() },
    });
    if (spent.count === 0) return { state: "used", incident: before.incident };
    try {
      return { ...before, incident: await this.acknowledge(before.incident.id, null, "link") };
    } catch (error) {
      // Resolved between the look and the click.
      if (error instanceof ConnectError && error.code === Code.FailedPrecondition) return { state: "expired", incident: before.incident };
      throw error;
    }
  }
}

/**
 * Writes the incident.acknowledged event (the monitor and regions as the
 * incident's latest alert told them) and its deliveries to the channels that
 * act on an acknowledgement; returns the event's id when it has any.
 */
async function recordAcknowledgement(tx: Tx, incident: IncidentRow, at: Date, by: string): Promise<string[]> {
  const latest = await tx.alertEvent.findFirst({
    where: { incidentId: incident.id, type: { in: ["monitor.failed", "monitor.degraded"] } },
    orderBy: [{ occurredAt: "desc" }, { id: "desc" }],
  });
  if (!latest) return [];
  const alerted = latest.details as unknown as EventDetails;
  const event: EventRow = {
    id: uuidv7(),
    workspaceId: incident.workspaceId,
    monitorId: incident.monitorId,
    incidentId: incident.id,
    type: ACKNOWLEDGED_EVENT,
    fromStatus: latest.toStatus,
    toStatus: latest.toStatus,
    occurredAt: at,
    details: { ...alerted, durationMs: null, reminder: null, acknowledgement: { by, at: at.toISOString() } },
  };
  await insertEvents(tx, [event]);
  const channels = await tx.notificationChannel.findMany({
    where: { monitors: { some: { monitorId: incident.monitorId } }, providerType: { in: [...ACKNOWLEDGEMENT_PROVIDERS] } },
    select: { id: true },
  });
  return insertDeliveries(tx, channels.map((channel) => ({ notificationId: channel.id, event })));
}
