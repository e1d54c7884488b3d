import { Prisma, type PrismaClient } from "@vigil/db";
import {
  CERTIFICATE_EXPIRING_EVENT,
  CERTIFICATE_RENEWED_EVENT,
  DEFAULTS,
  certificateDaysLeft,
  certificateWarningStage,
  isCertificateInfo,
  type CertificateInfo,
  type RegionId,
} from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { aboutMonitorOnly } from "@vigil/notifications";
import type { MonitorState } from "../status/evaluate";
import type { EventDetails } from "./message";
import { createDeliveries, insertEvents, monitorEvent, type EventRow } from "./record";

type Tx = Prisma.TransactionClient;

/** A certificate as GetMonitorStatus answers it, per region. */
export interface RegionCertificate extends CertificateInfo {
  checkedAt: Date;
}

/** The newest result carrying a certificate of each monitor in a batch. */
function newestWithCertificate(results: readonly ResultMessage[]): Map<string, ResultMessage & { certificate: CertificateInfo }> {
  const out = new Map<string, ResultMessage & { certificate: CertificateInfo }>();
  for (const r of results) {
    if (r.certificate && (out.get(r.monitorId)?.startedAt ?? "") < r.startedAt) out.set(r.monitorId, r as ResultMessage & { certificate: CertificateInfo });
  }
  return out;
}

/**
 * Warns of what newly stored results say of certificates, in the transaction
 * that stores them (its monitors locked, so each warning is decided once
 * whichever control plane stores the result): a monitor whose certificate
 * crossed a warning stage gets a monitor.certificate_expiring event with its
 * deliveries (the outbox), and one that was warned about and now shows a
 * later expiry a monitor.certificate_renewed event. (Each region's newest
 * certificate is kept with its status: status/evaluate.ts.)
 * Returns the ids of the events that have deliveries.
 */
export async function recordCertificates(tx: Tx, monitors: Map<string, MonitorState>, results: readonly ResultMessage[]): Promise<string[]> {
  const withCertificate = newestWithCertificate(results);
  if (withCertificate.size === 0) return [];
  return warn(tx, monitors, withCertificate);
}

async function warn(tx: Tx, monitors: Map<string, MonitorState>, seen: Map<string, ResultMessage & { certificate: CertificateInfo }>): Promise<string[]> {
  const ids = [...seen.keys()];
  const settings = await tx.$queryRaw<{ id: string; days: number | null; chain_not_after: Date | null; stage: number | null }[]>`
    SELECT m.id, m.certificate_expiry_days AS days, w.chain_not_after, w.stage
    FROM monitors m LEFT JOIN certificate_warnings w ON w.monitor_id = m.id
    WHERE m.id = ANY(${ids}::text[]) AND m.kind IN ('http', 'grpc')`;
  const events: EventRow[] = [];
  const saved: { monitorId: string; chainNotAfter: Date; stage: number }[] = [];
  const ended: string[] = [];
  for (const row of settings) {
    const monitor = monitors.get(row.id);
    const result = seen.get(row.id)!;
    if (!monitor) continue;
    const { certificate } = result;
    const chainNotAfter = new Date(certificate.chainNotAfter);
    const at = new Date(result.startedAt);
    const daysLeft = certificateDaysLeft(certificate, at);
    const stage = certificateWarningStage(daysLeft, row.days ?? DEFAULTS.certificateExpiryDays);
    const observed = { ...certificate, region: result.region as RegionId, daysLeft };
    const event = (type: EventRow["type"], details: EventDetails): EventRow => monitorEvent(monitor, type, at, details);
    // A certificate that expires later than the one warned about is a renewed one: the warning ends, and warnings start afresh.
    const renewed = row.chain_not_after !== null && chainNotAfter > row.chain_not_after;
    if (renewed) {
      const renews = row.chain_not_after!.toISOString();
      events.push(event(CERTIFICATE_RENEWED_EVENT, { ...aboutMonitorOnly(monitor), incident: null, certificate: { ...observed, renews } }));
    }
    const sent = renewed ? 0 : (row.stage ?? 0);
    if (stage <= sent) {
      if (renewed) ended.push(row.id);
      continue;
    }
    saved.push({ monitorId: row.id, chainNotAfter, stage });
    events.push(event(CERTIFICATE_EXPIRING_EVENT, { ...aboutMonitorOnly(monitor), incident: null, certificate: observed }));
  }
  if (ended.length > 0) await tx.$executeRaw`DELETE FROM certificate_warnings WHERE monitor_id = ANY(${ended}::text[])`;
  if (saved.length > 0) {
    await tx.$executeRaw`
      INSERT INTO certificate_warnings (monitor_id, chain_not_after, stage)
      SELECT * FROM unnest(${saved.map((s) => s.monitorId)}::text[], ${saved.map((s) => s.chainNotAfter)}::timestamp(3)[], ${saved.map((s) => s.stage)}::int[])
      ON CONFLICT (monitor_id) DO UPDATE SET chain_not_after = EXCLUDED.chain_not_after, stage = EXCLUDED.stage`;
  }
  if (events.length === 0) return [];
  await insertEvents(tx, events);
  return createDeliveries(tx, events);
}

/** The newest certificate each region of a monitor saw (GetMonitorStatus). */
export async function regionCertificates(prisma: PrismaClient, monitorId: string): Promise<Map<RegionId, RegionCertificate>> {
  const rows = await prisma.monitorRegionStatus.findMany({ where: { monitorId, certificate: { not: Prisma.DbNull } }, select: { region: true, certificate: true } });
  const out = new Map<RegionId, RegionCertificate>();
  for (const row of rows) {
    const stored = row.certificate as (CertificateInfo & { checkedAt?: string }) | null;
    if (isCertificateInfo(stored) && stored.checkedAt) out.set(row.region as RegionId, { ...stored, checkedAt: new Date(stored.checkedAt) });
  }
  return out;
}
