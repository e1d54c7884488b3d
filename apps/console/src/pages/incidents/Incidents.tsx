import { useQuery } from "@connectrpc/connect-query";
import { formatDuration } from "@vigil/domain/durations";
import { IncidentService, type Incident } from "@vigil/proto";
import { Link, useSearchParams } from "react-router";
import { StatusBadge } from "../../monitors/status";
import { useMonitorNames } from "../../monitors/names";
import { FormMessage, Page } from "../../ui";
import { Table, when } from "../../controls";
import { regionsText } from "../../monitors/regions";

const PAGE_SIZE = 20;

/** How long an incident lasted, or that it is still open. */
export const lasted = (incident: Incident) => (incident.resolvedAt ? `${when(incident.resolvedAt)} (${formatDuration(Number(incident.durationMs))})` : "open");

/** Open and past incidents, newest first; filters and the page live in the address, so that a view can be shared. */
export default function Incidents() {
  const [params, setParams] = useSearchParams();
  const openOnly = params.get("open") === "1";
  const monitorId = params.get("monitor") ?? "";
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const incidents = useQuery(IncidentService.method.listIncidents, { openOnly, monitorId, limit: PAGE_SIZE, offset }, { retry: false });
  const monitors = useMonitorNames();
  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next);
  };
  const total = incidents.data?.totalSize ?? 0;

  return (
    <Page title="Incidents" wide>
      <div className="filters">
        <div className="field check">
          <input id="open-only" type="checkbox" checked={openOnly} onChange={(e) => set({ open: e.target.checked ? "1" : "", offset: "" })} />
          <label htmlFor="open-only">Open only</label>
        </div>
        <div className="field">
          <label htmlFor="monitor-filter">Monitor</label>
          <select id="monitor-filter" value={monitorId} onChange={(e) => set({ monitor: e.target.value, offset: "" })}>
            <option value="">All monitors</option>
            {[...monitors].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {incidents.error && <FormMessage message={incidents.error.message} />}
      {incidents.data?.incidents.length === 0 && <p>No incident{openOnly ? " is open" : " yet"}.</p>}
      {!!incidents.data?.incidents.length && (
        <Table caption="Incidents" head={["Monitor", "Severity", "Started", "Resolved", "Regions", "Reason"]}>
          {incidents.data.incidents.map((i) => (
            <tr key={i.id}>
              <td>
                <Link to={`/incidents/${i.id}`}>{monitors.get(i.monitorId) ?? i.monitorId}</Link>
              </td>
              <td>
                <StatusBadge status={i.severity} />
              </td>
              <td>{when(i.startedAt)}</td>
              <td>{lasted(i)}</td>
              <td>{regionsText(i.regions)}</td>
              <td>{i.reason || i.error || "—"}</td>
            </tr>
          ))}
        </Table>
      )}
      {total > PAGE_SIZE && (
        <nav aria-label="Pages of incidents" className="actions">
          <p>
            {offset + 1}–{Math.min(offset + PAGE_SIZE, total)} of {total}
          </p>
          {offset > 0 && (
            <button type="button" className="secondary" onClick={() => set({ offset: String(Math.max(0, offset - PAGE_SIZE)) })}>
              Newer
            </button>
          )}
          {offset + PAGE_SIZE < total && (
            <button type="button" className="secondary" onClick={() => set({ offset: String(offset + PAGE_SIZE) })}>
              Older
            </button>
          )}
        </nav>
      )}
    </Page>
  );
}
