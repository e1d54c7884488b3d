import { useQuery } from "@connectrpc/connect-query";
import { formatDuration } from "@vigil/domain/durations";
import { StatusPageService } from "@vigil/proto/status-page";
import { Link, useParams } from "react-router";
import { Table } from "../../controls";
import { FormMessage, Page } from "../../ui";
import { ReportControls, percentText, useReportMonth } from "../reports";

const downtime = (seconds: bigint) => (seconds === 0n ? "None" : formatDuration(Number(seconds) * 1000));

/** A status page's monthly report (GetStatusPageReport), printable like a monitor's: the page, then each monitor component. */
export default function StatusPageReport() {
  const { id = "" } = useParams();
  const [month, setMonth] = useReportMonth();
  const report = useQuery(StatusPageService.method.getStatusPageReport, { id, month });
  const r = report.data;
  return (
    <Page title={r ? `${r.name}: report for ${r.month}` : "Monthly report"} wide>
      <ReportControls month={month} onMonth={setMonth} back="Back to the page" backTo={`/status-pages/${id}`} />
      {report.error && <FormMessage message={report.error.rawMessage} />}
      {!r && !report.error && <p role="status">Loading…</p>}
      {r && (
        <>
          <dl className="facts">
            <dt>Availability</dt>
            <dd>{percentText(r.availability)}</dd>
            <dt>Downtime</dt>
            <dd data-testid="page-report-downtime">{downtime(r.downtimeSeconds)}</dd>
          </dl>
          {r.components.length === 0 ? (
            <p>No component of this page is shown by a monitor.</p>
          ) : (
            <Table caption={`Components in ${r.month}`} head={["Component", "Availability", "Checks", "Failed", "Downtime", "Incidents"]}>
              {r.components.map((c) => (
                <tr key={c.componentId}>
                  <th scope="row">
                    <Link to={`/monitors/${c.monitorId}/report?month=${r.month}`}>{c.name}</Link>
                  </th>
                  <td>{percentText(c.availability)}</td>
                  <td>{(c.successful + c.degraded + c.failed).toString()}</td>
                  <td>{c.failed.toString()}</td>
                  <td>{downtime(c.downtimeSeconds)}</td>
                  <td>{c.incidents.toString()}</td>
                </tr>
              ))}
            </Table>
          )}
          <p className="hint">The page is down while any of its monitor components is; static components have no checks.</p>
        </>
      )}
    </Page>
  );
}
