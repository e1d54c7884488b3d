import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { CheckResult, CheckTiming } from "@vigil/proto";
import { formatLatency } from "../../monitors/status";
import { Table } from "../../controls";
import { regionName } from "../../monitors/regions";

const PHASES = [
  { key: "dnsMs", label: "DNS" },
  { key: "connectMs", label: "Connect" },
  { key: "tlsMs", label: "TLS" },
  { key: "firstByteMs", label: "First byte" },
  { key: "transferMs", label: "Transfer" },
] as const satisfies readonly { key: keyof CheckTiming; label: string }[];

const phaseMs = (timing: CheckTiming | undefined, key: (typeof PHASES)[number]["key"]): number | undefined => timing?.[key];
const totalMs = (timing: CheckTiming | undefined) => PHASES.reduce((sum, { key }) => sum + (phaseMs(timing, key) ?? 0), 0);

/**
 * The phases of recent checks as stacked bars (plain SVG: a few rectangles per check need no chart
 * library), all on one scale, the longest check filling the width; the table says it in numbers.
 */
export function PhaseBars({ results }: { results: readonly CheckResult[] }) {
  const timed = results.filter((r) => totalMs(r.timing) > 0);
  const longest = Math.max(...timed.map((r) => totalMs(r.timing)), 1);
  const time = (r: CheckResult) => (r.time ? timestampDate(r.time).toLocaleTimeString() : "—");
  return (
    <section aria-labelledby="phases-heading">
      <h2 id="phases-heading">Phases of recent checks</h2>
      {timed.length === 0 ? (
        <p>No check with timings yet.</p>
      ) : (
        <>
          <ul className="phase-legend" aria-hidden="true">
            {PHASES.map(({ key, label }, i) => (
              <li key={key}>
                <span className={`swatch phase-${i}`} /> {label}
              </li>
            ))}
          </ul>
          <ol className="phase-bars" aria-hidden="true">
            {timed.map((r) => {
              let x = 0;
              return (
                <li key={r.id}>
                  <span>
                    {time(r)} {regionName(r.region)} {formatLatency(totalMs(r.timing))}
                  </span>
                  <svg viewBox="0 0 100 10" preserveAspectRatio="none" focusable="false">
                    {PHASES.map(({ key }, i) => {
                      const width = (100 * (phaseMs(r.timing, key) ?? 0)) / longest;
                      const rect = <rect key={key} className={`phase-${i}`} x={x} y={0} width={width} height={10} />;
                      x += width;
                      return rect;
                    })}
                  </svg>
                </li>
              );
            })}
          </ol>
          <details>
            <summary>Phases as a table</summary>
            <Table caption="Phases of recent checks" head={["Time", "Region", ...PHASES.map((p) => p.label)]}>
              {timed.map((r) => (
                <tr key={r.id}>
                  <td>{time(r)}</td>
                  <td>{regionName(r.region)}</td>
                  {PHASES.map(({ key }) => (
                    <td key={key}>{formatLatency(phaseMs(r.timing, key))}</td>
                  ))}
                </tr>
              ))}
            </Table>
          </details>
        </>
      )}
    </section>
  );
}
