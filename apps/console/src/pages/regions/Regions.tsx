import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { regionName } from "../../monitors/regions";
import { MonitorService } from "@vigil/proto";
import { FormMessage, Page } from "../../ui";
import { Table, when } from "../../controls";

/** How often the page asks again: agents report within seconds, and the queue moves as fast. */
const REFRESH_MS = 3_000;

/** Seconds as people read an age: "4 s", "3 min", "2 h". */
function formatAge(seconds: number): string {
  if (seconds < 1) return "none waiting";
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3_600)} h`;
}

/** The regions with agents now: who runs there, when they were last seen, what waits in the queue. */
export default function Regions() {
  const regions = useQuery(MonitorService.method.listRegions, {}, { refetchInterval: REFRESH_MS, retry: false });
  const list = regions.data?.regions ?? [];
  return (
    <Page title="Regions" wide>
      {regions.error && <FormMessage message={regions.error.message} />}
      <p className="hint">Refreshed every {REFRESH_MS / 1000} seconds.</p>
      {regions.data && list.length === 0 && <p>No agent has reported yet: start one with the region it runs in.</p>}
      {list.length > 0 && (
        <Table caption="Regions" head={["Region", "Agents", "Last seen", "Queue depth", "Oldest check waiting", "Checks per minute"]}>
          {list.map((r) => (
            <tr key={r.region} data-testid="region-row">
              <th scope="row">{regionName(r.region)}</th>
              <td>{r.agents.map((a) => a.name).join(", ") || "none"}</td>
              <td>
                {r.lastSeenAt ? <time dateTime={timestampDate(r.lastSeenAt).toISOString()}>{when(r.lastSeenAt)}</time> : "never"}
              </td>
              <td>{String(r.queueDepth)}</td>
              <td>{formatAge(r.oldestCheckAgeSeconds)}</td>
              <td>{r.checksPerMinute.toFixed(1)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Page>
  );
}
