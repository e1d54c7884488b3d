import type { CheckResult } from "@vigil/proto";
import { StatusBadge, formatLatency } from "../../monitors/status";
import { Table, when } from "../../controls";
import { regionName } from "../../monitors/regions";

/** The checks newest first, as ListCheckResults pages them; "Older" asks for the page after the last. */
export function CheckLog({ results, more, loadingMore, onOlder }: { results: readonly CheckResult[]; more: boolean; loadingMore: boolean; onOlder: () => void }) {
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Recent checks</h2>
      {results.length === 0 ? (
        <p>No check has run yet.</p>
      ) : (
        <Table caption="Recent checks" head={["Time", "Region", "Status", "Code", "Latency", "Trace", "Failure", "Error"]}>
          {results.map((r) => (
            <tr key={r.id} data-testid="check-row">
              <td>{when(r.time)}</td>
              <td>{regionName(r.region)}</td>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td>{r.statusCode || "—"}</td>
              <td>{formatLatency(r.latencyMs)}</td>
              <td>{r.traceId ? <code className="trace-id">{r.traceId}</code> : "—"}</td>
              <td>{r.failureReason || "—"}</td>
              <td>{r.error || "—"}</td>
            </tr>
          ))}
        </Table>
      )}
      {more && (
        <button type="button" className="secondary" onClick={onOlder} disabled={loadingMore}>
          Older
        </button>
      )}
    </section>
  );
}
