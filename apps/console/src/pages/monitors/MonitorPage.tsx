import { useInfiniteQuery, useQuery } from "@connectrpc/connect-query";
import { useQuery as useTanstackQuery } from "@tanstack/react-query";
import { roleCan } from "@vigil/domain/accounts";
import { uptimePercent } from "@vigil/domain/status-page-status";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { IncidentService, MonitorService, MonitorStatus, TimeRange, type Region, type RegionStatus } from "@vigil/proto";
import { useEffect, useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { StatusBadge, formatLatency, formatPercent } from "../../monitors/status";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { Table, useAction, useClient, when } from "../../controls";
import { CheckLog } from "./CheckLog";
import { HeartbeatView } from "./HeartbeatView";
import { LatencyChart } from "./LatencyChart";
import { PhaseBars } from "./PhaseBars";
import { SloPanel } from "./SloPanel";
import { regionName } from "../../monitors/regions";
import { KIND_NAMES, setActive, targetOf, type AnyMonitor, type Kind } from "./monitor";

/** After "Check now" the page asks again every second for this long, so the new results show as they arrive. */
const LIVE_AFTER_CHECK_MS = 30_000;
const LIVE_INTERVAL_MS = 1_000;
const LOG_PAGE = 20;
/** The phases are drawn for this many of the newest checks. */
const PHASE_CHECKS = 10;

/** A monitor: its status and uptime per region, latency chart, phases, check log and incidents, and its controls. */
export default function MonitorPage() {
  const { id = "" } = useParams();
  const got = useQuery(MonitorService.method.getMonitor, { id });
  const config = got.data?.monitor?.config;
  if (got.error) {
    return (
      <Page title="Monitor" wide>
        <FormMessage message={got.error.rawMessage} />
        <Link to="/monitors">All monitors</Link>
      </Page>
    );
  }
  if (!config?.case) {
    return (
      <Page title="Monitor" wide>
        <p role="status">Loading…</p>
      </Page>
    );
  }
  if (config.case === "heartbeat") return <HeartbeatView id={id} monitor={config.value} />;
  return <MonitorView id={id} kind={config.case} monitor={config.value} />;
}

function useLive(): [number | false, () => void] {
  const [until, setUntil] = useState(0);
  useEffect(() => {
    if (!until) return;
    const timer = setTimeout(() => setUntil(0), until - Date.now());
    return () => clearTimeout(timer);
  }, [until]);
  return [until ? LIVE_INTERVAL_MS : false, () => setUntil(Date.now() + LIVE_AFTER_CHECK_MS)];
}

function MonitorView({ id, kind, monitor }: { id: string; kind: Kind; monitor: AnyMonitor }) {
  const role = useRole();
  const mayWrite = role !== undefined && roleCan(role, "write");
  const [refetchInterval, goLive] = useLive();
  // The refusal stays on the page when it hides the controls (a role taken away since the page was opened).
  const action = useAction();
  const status = useQuery(MonitorService.method.getMonitorStatus, { id }, { refetchInterval });
  // The configured regions, and any that still report (a region dropped from the monitor keeps its last status);
  // the same list while the same regions, so the chart is not drawn again for each answer of the status.
  const regionList = [...new Set([...("regions" in monitor ? monitor.regions : []), ...(status.data?.regions.map((r) => r.region) ?? [])])].sort((a, b) => a - b);
  const regionKey = regionList.join(",");
  const regions = useMemo(() => regionList, [regionKey]);
  const log = useInfiniteQuery(
    MonitorService.method.listCheckResults,
    { id, limit: LOG_PAGE, cursor: "" },
    { pageParamKey: "cursor", getNextPageParam: (page) => page.nextCursor || undefined, refetchInterval },
  );
  const results = log.data?.pages.flatMap((p) => p.results) ?? [];

  return (
    <Page title={monitor.name ?? id} wide>
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{KIND_NAMES[kind]}</dd>
        <dt>Target</dt>
        <dd>
          <code>{targetOf(kind, monitor)}</code>
        </dd>
        {monitor.$typeName === "monitor.v1.GRPCMonitor" && (
          <>
            <dt>Health service</dt>
            <dd>{monitor.service ? <code>{monitor.service}</code> : "The whole server"}</dd>
            <dt>Expected status</dt>
            <dd>{monitor.expectedStatus}</dd>
            <dt>TLS</dt>
            <dd>{monitor.tls ? "On" : "Off"}</dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          <StatusBadge status={monitor.status} /> {monitor.active ? "" : "(paused)"}
        </dd>
      </dl>
      {action.message}
      {mayWrite && <Controls id={id} kind={kind} monitor={monitor} run={action.run} onChecked={goLive} />}
      <RegionsTable id={id} regions={regions} statuses={status.data?.regions ?? []} />
      <SloPanel id={id} />
      <p>
        <Link to={`/monitors/${id}/report`}>Monthly report</Link>
      </p>
      <LatencyChart id={id} regions={regions} refetchInterval={refetchInterval} />
      <PhaseBars results={results.slice(0, PHASE_CHECKS)} />
      <CheckLog results={results} more={log.hasNextPage} loadingMore={log.isFetchingNextPage} onOlder={() => void log.fetchNextPage()} />
      <Incidents id={id} />
    </Page>
  );
}

interface ControlsProps {
  id: string;
  kind: Kind;
  monitor: AnyMonitor;
  run: ReturnType<typeof useAction>["run"];
  onChecked: () => void;
}

function Controls({ id, kind, monitor, run, onChecked }: ControlsProps) {
  const client = useClient(MonitorService);
  const navigate = useNavigate();
  const checkNow = async () => {
    if (await run(() => client.triggerMonitor({ id }))) onChecked();
  };
  const remove = async () => {
    if (await run(() => client.deleteMonitor({ id }), `Delete the monitor ${monitor.name ?? id} and its results?`)) navigate("/monitors");
  };
  return (
    <div className="actions">
      <button type="button" onClick={() => void checkNow()}>
        Check now
      </button>
      <button type="button" className="secondary" onClick={() => void run(() => setActive(client, kind, id, !monitor.active))}>
        {monitor.active ? "Pause" : "Resume"}
      </button>
      <Link to={`/monitors/${id}/edit`}>Edit</Link>
      <button type="button" className="secondary" onClick={() => void remove()}>
        Delete
      </button>
    </div>
  );
}

/** "2026-12-09, 9 days left (CN=R11, O=Let's Encrypt, C=US)": when the chain the region's newest check saw expires first. */
function certificateText(certificate: RegionStatus["certificate"]): string {
  if (!certificate?.chainNotAfter) return "—";
  const days = Number(certificate.daysLeft);
  const left = days < 0 ? "expired" : `${days} ${days === 1 ? "day" : "days"} left`;
  return `${timestampDate(certificate.chainNotAfter).toISOString().slice(0, 10)}, ${left} (${certificate.issuer})`;
}

/** Each region's status now, its uptime and p95 over 24 hours (GetMonitorSummary per region), and the certificate it saw. */
function RegionsTable({ id, regions, statuses }: { id: string; regions: readonly Region[]; statuses: readonly RegionStatus[] }) {
  const client = useClient(MonitorService);
  const summaries = useTanstackQuery({
    queryKey: ["monitor-region-summaries", id, regions],
    queryFn: () => Promise.all(regions.map((region) => client.getMonitorSummary({ id, timeRange: TimeRange.TIME_RANGE_1D, regions: [region] }))),
  });
  return (
    <section aria-labelledby="regions-heading">
      <h2 id="regions-heading">Regions</h2>
      <Table caption="Status and uptime per region" head={["Region", "Status", "Uptime 24 h", "p95 24 h", "Last check", "Certificate"]}>
        {regions.map((region, i) => {
          const summary = summaries.data?.[i];
          const uptime = summary
            ? uptimePercent({ successful: Number(summary.totalSuccessful), degraded: Number(summary.totalDegraded), failed: Number(summary.totalFailed) })
            : null;
          return (
            <tr key={region}>
              <th scope="row">{regionName(region)}</th>
              <td>
                <StatusBadge status={statuses.find((s) => s.region === region)?.status ?? MonitorStatus.UNKNOWN} />
              </td>
              <td>{formatPercent(uptime === null ? null : uptime / 100)}</td>
              <td>{formatLatency(summary?.lastPingAt ? summary.p95 : undefined)}</td>
              <td>{when(summary?.lastPingAt)}</td>
              <td data-testid="region-certificate">{certificateText(statuses.find((s) => s.region === region)?.certificate)}</td>
            </tr>
          );
        })}
      </Table>
    </section>
  );
}

function Incidents({ id }: { id: string }) {
  const incidents = useQuery(IncidentService.method.listIncidents, { monitorId: id, limit: 20 });
  const list = incidents.data?.incidents ?? [];
  return (
    <section aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents</h2>
      {list.length === 0 ? (
        <p>No incident.</p>
      ) : (
        <Table caption="Incidents of this monitor" head={["Started", "Resolved", "Severity", "Regions", "Reason"]}>
          {list.map((incident) => (
            <tr key={incident.id}>
              <td>
                <Link to={`/incidents/${incident.id}`}>{when(incident.startedAt)}</Link>
              </td>
              <td>{incident.resolvedAt ? when(incident.resolvedAt) : "Open"}</td>
              <td>
                <StatusBadge status={incident.severity} />
              </td>
              <td>{incident.regions.map(regionName).join(", ")}</td>
              <td>{incident.reason || "—"}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
