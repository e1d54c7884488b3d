import { useQuery } from "@connectrpc/connect-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { roleCan } from "@vigil/domain/accounts";
import { MonitorService, type HeartbeatMonitor } from "@vigil/proto";
import { Link } from "react-router";
import { StatusBadge } from "../../monitors/status";
import { useRole } from "../../SignedIn";
import { Page } from "../../ui";
import { Table } from "../../controls";

const duration = (ms: bigint | undefined) => (ms === undefined ? "" : `${(Number(ms) / 1000).toFixed(1)} s`);

/** A heartbeat monitor's page: its schedule, its ping URL (for those who may see it), and its newest pings with run durations. */
export function HeartbeatView({ id, monitor }: { id: string; monitor: HeartbeatMonitor }) {
  const role = useRole();
  const mayWrite = role !== undefined && roleCan(role, "write");
  const pings = useQuery(MonitorService.method.listHeartbeatPings, { id, limit: 50 });
  const schedule = monitor.cron ? `cron ${monitor.cron} (${monitor.timezone})` : `every ${String(monitor.periodSeconds ?? "")} s`;
  return (
    <Page title={monitor.name ?? "Monitor"} wide>
      <p>
        <StatusBadge status={monitor.status} /> {monitor.active ? "" : "(paused)"}
      </p>
      <p>
        Heartbeat monitor: {schedule}, {String(monitor.graceSeconds ?? "")} s grace.
      </p>
      {monitor.pingUrl && (
        <p>
          Ping URL: <code>{monitor.pingUrl}</code>
        </p>
      )}
      {mayWrite && (
        <p>
          <Link to={`/monitors/${id}/edit`}>Edit</Link>
        </p>
      )}
      <h2>Pings</h2>
      {(pings.data?.pings.length ?? 0) === 0 ? (
        <p>No pings yet.</p>
      ) : (
        <Table caption="Pings" head={["Time", "Kind", "Exit code", "Run", "Body"]}>
          {pings.data!.pings.map((p) => (
            <tr key={p.id}>
              <td>{p.time ? timestampDate(p.time).toISOString() : ""}</td>
              <td>{p.kind}</td>
              <td>{p.exitCode ?? ""}</td>
              <td>{duration(p.durationMs)}</td>
              <td>{p.body.length > 200 ? `${p.body.slice(0, 200)}…` : p.body}</td>
            </tr>
          ))}
        </Table>
      )}
    </Page>
  );
}
