import type { Delivery } from "@vigil/proto/notification";
import { Table, when } from "../../controls";

const EVENTS: Record<string, string> = {
  "monitor.failed": "Failed",
  "monitor.degraded": "Degraded",
  "monitor.recovered": "Recovered",
  "incident.acknowledged": "Acknowledged",
  "incident.reminder": "Reminder",
  "monitor.certificate_expiring": "Certificate expiring",
  "monitor.certificate_renewed": "Certificate renewed",
  "slo.burn_rate": "SLO burning",
  "slo.burn_rate_ended": "SLO burn ended",
  test: "Test",
};

/**
 * Deliveries with what the provider answered: attempts (more than one means
 * retries), the outcome (pending while waiting for a retry), the last status
 * code or error. `channel` names each one's channel where several are shown.
 */
export function Deliveries({ deliveries, caption, channel }: { deliveries: readonly Delivery[]; caption: string; channel?: (d: Delivery) => React.ReactNode }) {
  if (deliveries.length === 0) return <p>No delivery yet.</p>;
  return (
    <Table caption={caption} head={[...(channel ? ["Channel"] : []), "Event", "Queued", "Attempts", "Outcome", "Answer", "Completed"]}>
      {deliveries.map((d) => (
        <tr key={d.id}>
          {channel && <td>{channel(d)}</td>}
          <td>{EVENTS[d.event] ?? d.event}</td>
          <td>{when(d.createdAt)}</td>
          <td>
            {d.attempts}
            {d.attempts > 1 && ` (${d.attempts - 1} ${d.attempts === 2 ? "retry" : "retries"})`}
          </td>
          <td>{d.outcome === "pending" && d.attempts > 0 ? "pending, retrying" : d.outcome}</td>
          <td>{[d.statusCode ? `HTTP ${d.statusCode}` : "", d.error].filter(Boolean).join(": ") || "—"}</td>
          <td>{when(d.completedAt)}</td>
        </tr>
      ))}
    </Table>
  );
}
