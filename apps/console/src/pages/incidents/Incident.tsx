import { useQuery } from "@connectrpc/connect-query";
import { IncidentService } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { Link, useParams } from "react-router";
import { StatusBadge, formatLatency } from "../../monitors/status";
import { useMonitorNames } from "../../monitors/names";
import { FormMessage, Page } from "../../ui";
import { Deliveries } from "../channels/Deliveries";
import { Table, useAction, useClient, when } from "../../controls";
import { roleCan } from "@vigil/domain/accounts";
import { useRole } from "../../SignedIn";
import { lasted } from "./Incidents";
import { regionName, regionsText } from "../../monitors/regions";

const EVENTS: Record<string, string> = {
  "monitor.failed": "Failed",
  "monitor.degraded": "Degraded",
  "monitor.recovered": "Recovered",
  "incident.acknowledged": "Acknowledged",
};

/** One incident: what it was, its timeline region by region, and what each channel was told. */
export default function Incident() {
  const { id = "" } = useParams();
  const incident = useQuery(IncidentService.method.getIncident, { id }, { retry: false });
  const deliveries = useQuery(NotificationService.method.listNotificationDeliveries, { incidentId: id, limit: 100 }, { retry: false });
  const channels = useQuery(NotificationService.method.listNotifications, { limit: 100 }, { retry: false });
  const monitors = useMonitorNames();
  const i = incident.data?.incident;
  const channelName = new Map(channels.data?.notifications.map((c) => [c.id, c.name || c.id]));
  const monitorName = i ? (monitors.get(i.monitorId) ?? i.monitorId) : "";
  const role = useRole();
  const client = useClient(IncidentService);
  const action = useAction();
  const mayAcknowledge = !!i && !i.resolvedAt && !i.acknowledgedAt && !!role && roleCan(role, "write");

  return (
    <Page title={i ? `Incident of ${monitorName}` : "Incident"} wide>
      {incident.error && <FormMessage message={incident.error.message} />}
      {i && (
        <dl>
          <dt>Monitor</dt>
          <dd>{monitorName}</dd>
          <dt>Severity</dt>
          <dd>
            <StatusBadge status={i.severity} />
          </dd>
          <dt>Started</dt>
          <dd>{when(i.startedAt)}</dd>
          <dt>Resolved</dt>
          <dd>{lasted(i)}</dd>
          <dt>Regions when it opened</dt>
          <dd>{regionsText(i.regions)}</dd>
          <dt>First error</dt>
          <dd>{[i.statusCode ? `HTTP ${i.statusCode}` : "", i.reason, i.error].filter(Boolean).join(" · ") || "—"}</dd>
          <dt>Acknowledged</dt>
          <dd>{i.acknowledgedAt ? `${when(i.acknowledgedAt)} by ${i.acknowledgedBy}` : "not yet"}</dd>
          <dt>Also affected</dt>
          <dd>
            {i.alsoAffected.length === 0 ? (
              "—"
            ) : (
              <ul aria-label="Also affected">
                {i.alsoAffected.map((monitorId) => (
                  <li key={monitorId}>
                    <Link to={`/monitors/${monitorId}`}>{monitors.get(monitorId) ?? monitorId}</Link>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      )}
      {action.message}
      {mayAcknowledge && (
        <button type="button" onClick={() => void action.run(() => client.acknowledgeIncident({ id }))}>
          Acknowledge
        </button>
      )}
      <h2>Timeline</h2>
      {incident.data && (
        <Table caption="Timeline of the incident" head={["Time", "Event", "Region", "Status", "Answer", "Latency"]}>
          {incident.data.timeline.flatMap((event) =>
            event.type === "incident.acknowledged" ? (
              <tr key={event.id}>
                <td>{when(event.occurredAt)}</td>
                <td>{EVENTS[event.type]}</td>
                <td colSpan={4}>{i?.acknowledgedBy ? `by ${i.acknowledgedBy}` : ""}</td>
              </tr>
            ) : event.regions.map((r, index) => (
              <tr key={`${event.id}-${r.region}`}>
                <td>{index === 0 ? when(event.occurredAt) : ""}</td>
                <td>{index === 0 ? (EVENTS[event.type] ?? event.type) : ""}</td>
                <td>{regionName(r.region)}</td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td>{[r.statusCode ? `HTTP ${r.statusCode}` : "", r.reason, r.error].filter(Boolean).join(" · ") || "—"}</td>
                <td>{r.latencyMs ? formatLatency(r.latencyMs) : "—"}</td>
              </tr>
            )),
          )}
        </Table>
      )}
      <h2>Deliveries</h2>
      {deliveries.error && <FormMessage message={deliveries.error.message} />}
      {deliveries.data && (
        <Deliveries
          deliveries={deliveries.data.deliveries}
          caption="Deliveries of the incident"
          channel={(d) => <Link to={`/channels/${d.notificationId}`}>{channelName.get(d.notificationId) ?? d.notificationId}</Link>}
        />
      )}
    </Page>
  );
}
