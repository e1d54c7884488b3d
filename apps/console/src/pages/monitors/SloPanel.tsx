import { useQuery } from "@connectrpc/connect-query";
import { MonitorService, type SloFigures } from "@vigil/proto";
import { Table } from "../../controls";

const percent = (value: number | undefined, digits: number) => (value === undefined ? "—" : `${value.toFixed(digits)} %`);
const rate = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(2)}×`);

/**
 * The monitor's objectives (GetMonitorSlo): the figure over the window, the error budget left and the burn rates over 1 h
 * and 6 h. Nothing when it has no objectives. A spent budget is said in words beside its
 * numbers.
 */
export function SloPanel({ id }: { id: string }) {
  const slo = useQuery(MonitorService.method.getMonitorSlo, { id });
  const data = slo.data;
  const rows: [string, string, SloFigures][] = [];
  if (data?.availability) rows.push(["Availability", `${data.availability.objective} % of checks not failed`, data.availability]);
  if (data?.latency) rows.push(["Latency", `${data.latency.objective} % of answered checks ≤ ${data.latency.thresholdMs} ms`, data.latency]);
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="slo-heading">
      <h2 id="slo-heading">Objectives</h2>
      <Table
        caption={`Service level objectives over the last ${data!.windowDays} days (UTC)`}
        head={["Objective", "Target", "Actual", "Good / checks", "Budget left", "Burn rate 1 h", "Burn rate 6 h"]}
      >
        {rows.map(([name, target, f]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{target}</td>
            <td>{percent(f.actual, 3)}</td>
            <td>
              {f.good.toString()} / {f.total.toString()}
            </td>
            <td data-testid={`slo-budget-${name.toLowerCase()}`}>
              {percent(f.budgetRemaining, 1)}
              {f.budgetRemaining !== undefined && f.budgetRemaining <= 0 ? " (spent)" : ""}
            </td>
            <td>{rate(f.burnRate1h)}</td>
            <td>{rate(f.burnRate6h)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
