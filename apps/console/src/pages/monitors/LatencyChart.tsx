import { useQuery } from "@tanstack/react-query";
import { timeRangeCodec } from "@vigil/domain/proto/enums";
import { MonitorService, type GetMonitorTimeseriesResponse, type Region } from "@vigil/proto";
import { useEffect, useMemo, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatLatency } from "../../monitors/status";
import { Table, useClient, when } from "../../controls";
import { CHART_DRAW_MEASURE, CHART_DRAW_START } from "./chart-timing";
import { regionName } from "../../monitors/regions";

type RangeWord = (typeof timeRangeCodec.values)[number];

/** The ranges in the API's words (timeRangeCodec: 1h, 1d, 7d, 14d), as `?range=` names them. */
const RANGES = [
  { range: "1h", label: "1 h" },
  { range: "1d", label: "24 h" },
  { range: "7d", label: "7 d" },
  { range: "14d", label: "14 d" },
] as const satisfies readonly { range: RangeWord; label: string }[];
const DEFAULT_RANGE: RangeWord = "1d";

/** Region colours are CSS variables (styles.css) so that light and dark each keep their contrast. */
const SERIES_COLOURS = 6;
const HEIGHT = 240;

interface RegionSeries {
  region: Region;
  answer: GetMonitorTimeseriesResponse;
}

/** The colour class of a region's lines, shared by the chart, its toggles and its table. */
const colourOf = (index: number) => `series-${index % SERIES_COLOURS}`;

/**
 * Latency over a range, p50 (solid) and p95 (dashed) per region, drawn by uPlot on a canvas; the
 * table under it says the same in words. One GetMonitorTimeseries per region, asked together.
 */
export function LatencyChart({ id, regions, refetchInterval }: { id: string; regions: readonly Region[]; refetchInterval: number | false }) {
  const client = useClient(MonitorService);
  // The range is in the address (?range=14d), so that a link shows the chart as it was seen.
  const [params, setParams] = useSearchParams();
  const range = RANGES.find((r) => r.range === params.get("range"))?.range ?? DEFAULT_RANGE;
  const setRange = (value: RangeWord) => setParams((p) => (p.set("range", value), p), { replace: true });
  const [hidden, setHidden] = useState<ReadonlySet<Region>>(new Set());
  const series = useQuery({
    queryKey: ["monitor-timeseries", id, range, regions],
    queryFn: () =>
      Promise.all(regions.map(async (region): Promise<RegionSeries> => ({ region, answer: await client.getMonitorTimeseries({ id, timeRange: timeRangeCodec.encode(range), regions: [region] }) }))),
    refetchInterval,
  });
  const shown = useMemo(() => (series.data ?? []).filter((s) => !hidden.has(s.region)), [series.data, hidden]);
  const colours = useMemo(() => shown.map((s) => colourOf(regions.indexOf(s.region))), [shown, regions]);
  const toggle = (region: Region) =>
    setHidden((before) => {
      const next = new Set(before);
      if (!next.delete(region)) next.add(region);
      return next;
    });

  return (
    <section aria-labelledby="latency-heading">
      <h2 id="latency-heading">Latency</h2>
      <fieldset className="toggles">
        <legend>Range</legend>
        {RANGES.map(({ range: value, label }) => (
          <label key={value}>
            <input type="radio" name="range" checked={range === value} onChange={() => setRange(value)} /> {label}
          </label>
        ))}
      </fieldset>
      <fieldset className="toggles">
        <legend>Regions</legend>
        {regions.map((region, index) => (
          <label key={region}>
            <input type="checkbox" checked={!hidden.has(region)} onChange={() => toggle(region)} />{" "}
            <span className={`swatch ${colourOf(index)}`} aria-hidden="true" /> {regionName(region)}
          </label>
        ))}
      </fieldset>
      {series.error && <p className="error">{series.error.message}</p>}
      {series.data && <Plot series={shown} colours={colours} />}
      {series.data && <LatencyTable series={shown} />}
    </section>
  );
}

/** The value of CSS variable `name` on the page as it is now (light or dark). */
const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Follows the colour scheme, so the chart is drawn again in the other scheme's colours. */
function useColourScheme(): boolean {
  const query = useMemo(() => matchMedia("(prefers-color-scheme: dark)"), []);
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const change = () => setDark(query.matches);
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, [query]);
  return dark;
}

/** The buckets of every region on one time axis (seconds), a gap where a bucket had no answered check. */
function alignedData(series: readonly RegionSeries[]): uPlot.AlignedData {
  const starts = [...new Set(series.flatMap((s) => s.answer.buckets.map((b) => Number(b.start?.seconds ?? 0n))))].sort((a, b) => a - b);
  const columns = series.flatMap(({ answer }) => {
    const at = new Map(answer.buckets.map((b) => [Number(b.start?.seconds ?? 0n), b]));
    const line = (pick: "p50" | "p95") =>
      starts.map((start) => {
        const bucket = at.get(start);
        return bucket && bucket.count > bucket.failed ? Number(bucket[pick]) : null;
      });
    return [line("p50"), line("p95")];
  });
  return [starts, ...columns];
}

function Plot({ series, colours }: { series: readonly RegionSeries[]; colours: readonly string[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const dark = useColourScheme();
  const data = useMemo(() => alignedData(series), [series]);
  useEffect(() => {
    const target = ref.current!;
    const text = cssVar("--text");
    const grid = cssVar("--grid");
    const axis: uPlot.Axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const lines = series.flatMap((s, i): uPlot.Series[] => {
      const stroke = cssVar(`--${colours[i]}`);
      const region = regionName(s.region);
      return [
        // Points as well as lines: a bucket between two empty ones has no segment to draw.
        { label: `${region} p50`, stroke, width: 2, points: { show: true, size: 5, fill: stroke }, value: (_u, v) => formatLatency(v) },
        { label: `${region} p95`, stroke, width: 1.5, dash: [6, 4], points: { show: true, size: 4 }, value: (_u, v) => formatLatency(v) },
      ];
    });
    let measured = false;
    performance.mark(CHART_DRAW_START);
    const plot = new uPlot(
      {
        width: target.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max ?? 0, 1) * 1.1] } },
        axes: [axis, { ...axis, size: 60, values: (_u, ticks) => ticks.map((v) => formatLatency(v)) }],
        series: [{}, ...lines],
        hooks: {
          draw: [
            () => {
              if (measured) return;
              measured = true;
              performance.measure(CHART_DRAW_MEASURE, CHART_DRAW_START);
            },
          ],
        },
      },
      data,
      target,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: target.clientWidth, height: HEIGHT }));
    resize.observe(target);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, series, colours, dark]);
  // The canvas repeats the table below for sighted people; assistive technology reads the table.
  return <div ref={ref} className="chart" data-testid="latency-chart" aria-hidden="true" />;
}

/** The chart in words: per region, its checks, failures, newest p50 and highest p95 over the range. */
function LatencyTable({ series }: { series: readonly RegionSeries[] }) {
  return (
    <Table caption="Latency per region over the range" head={["Region", "Checks", "Failed", "Latest p50", "Highest p95", "Newest bucket"]}>
      {series.map(({ region, answer }) => {
        const answered = answer.buckets.filter((b) => b.count > b.failed);
        const newest = answered.at(-1);
        const highest = answered.reduce<bigint | undefined>((max, b) => (max === undefined || b.p95 > max ? b.p95 : max), undefined);
        return (
          <tr key={region}>
            <th scope="row">{regionName(region)}</th>
            <td>{String(answer.buckets.reduce((n, b) => n + b.count, 0n))}</td>
            <td>{String(answer.buckets.reduce((n, b) => n + b.failed, 0n))}</td>
            <td>{formatLatency(newest?.p50)}</td>
            <td>{formatLatency(highest)}</td>
            <td>{when(newest?.start)}</td>
          </tr>
        );
      })}
    </Table>
  );
}
