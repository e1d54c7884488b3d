import { useQuery } from "@connectrpc/connect-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { MonitorService, type ReportFigures } from "@vigil/proto";
import { Link, useParams } from "react-router";
import { formatDuration } from "@vigil/domain/durations";
import { regionName } from "../../monitors/regions";
import { FormMessage, Page } from "../../ui";
import { Table } from "../../controls";
import { ReportControls, percentText as percent, useReportMonth } from "../reports";

function FiguresRow({ name, f }: { name: string; f: ReportFigures | undefined }) {
  const n = (value: bigint | undefined) => (value ?? 0n).toString();
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{percent(f?.availability)}</td>
      <td>{n(f?.successful)}</td>
      <td>{n(f?.degraded)}</td>
      <td>{n(f?.failed)}</td>
      <td>{n(f?.p50)} ms</td>
      <td>{n(f?.p90)} ms</td>
      <td>{n(f?.p95)} ms</td>
      <td>{n(f?.p99)} ms</td>
    </tr>
  );
}

/**
 * A monitor's monthly report (GetMonitorReport), laid out to be printed: the month is chosen in the address
 * (`?month=YYYY-MM`, the last whole month by default), and the print style drops the console's navigation.
 */
export default function MonitorReport() {
  const { id = "" } = useParams();
  const [month, setMonth] = useReportMonth();
  const report = useQuery(MonitorService.method.getMonitorReport, { id, month });
  const r = report.data;
  return (
    <Page title={r ? `${r.name}: report for ${r.month}` : "Monthly report"} wide>
      <ReportControls month={month} onMonth={setMonth} back="Back to the monitor" backTo={`/monitors/${id}`} />
      {report.error && <FormMessage message={report.error.rawMessage} />}
      {!r && !report.error && <p role="status">Loading…</p>}
      {r && (
        <>
          <dl className="facts">
            <dt>Month (UTC)</dt>
            <dd>
              {timestampDate(r.from!).toISOString().slice(0, 10)} to {new Date(timestampDate(r.to!).getTime() - 1).toISOString().slice(0, 10)}
            </dd>
            <dt>Downtime</dt>
            <dd data-testid="report-downtime">{r.downtimeSeconds === 0n ? "None" : formatDuration(Number(r.downtimeSeconds) * 1000)}</dd>
            <dt>Incidents</dt>
            <dd>{r.incidents.length}</dd>
          </dl>
          <section aria-labelledby="report-availability">
            <h2 id="report-availability">Availability and latency</h2>
            <Table caption={`Availability and latency percentiles for ${r.month}`} head={["Region", "Availability", "Successful", "Degraded", "Failed", "p50", "p90", "p95", "p99"]}>
              <FiguresRow name="All regions" f={r.overall} />
              {r.regions.map((region) => (
                <FiguresRow key={region.region} name={regionName(region.region)} f={region.figures} />
              ))}
            </Table>
            <p className="hint">
              Percentiles are read from latency buckets: within {(r.percentileRelativeError * 100).toFixed(1)} % of the exact ones. Downtime is the time failing
              incidents cover.
            </p>
          </section>
          <section aria-labelledby="report-incidents">
            <h2 id="report-incidents">Incidents</h2>
            {r.incidents.length === 0 ? (
              <p>No incident this month.</p>
            ) : (
              <Table caption={`Incidents in ${r.month}`} head={["Started", "Resolved", "Severity", "In the month"]}>
                {r.incidents.map((i) => (
                  <tr key={i.id}>
                    <td>
                      <Link to={`/incidents/${i.id}`}>{timestampDate(i.startedAt!).toISOString().replace("T", " ").slice(0, 16)} UTC</Link>
                    </td>
                    <td>{i.resolvedAt ? `${timestampDate(i.resolvedAt).toISOString().replace("T", " ").slice(0, 16)} UTC` : "Open"}</td>
                    <td>{i.severity === "error" ? "Down" : "Degraded"}</td>
                    <td>{formatDuration(Number(i.durationSeconds) * 1000)}</td>
                  </tr>
                ))}
              </Table>
            )}
          </section>
        </>
      )}
    </Page>
  );
}
