import { formatLatency } from "../../monitors/status";

export interface SparkHour {
  start: Date;
  count: number;
  failed: number;
  p50: number;
}

const WIDTH = 96;
const HEIGHT = 28;

/**
 * A day of a monitor in one line: the hourly median latency as a line, and below it a bar in each hour
 * some checks failed, as tall as the failed share. Screen readers get the same in words.
 */
export function Sparkline({ hours }: { hours: SparkHour[] }) {
  const step = WIDTH / hours.length;
  const highest = Math.max(1, ...hours.map((h) => h.p50));
  const points = hours.flatMap((h, i) => (h.p50 > 0 ? [`${(i + 0.5) * step},${HEIGHT - 1 - (h.p50 / highest) * (HEIGHT - 2)}`] : []));
  const checks = hours.reduce((sum, h) => sum + h.count, 0);
  const failed = hours.reduce((sum, h) => sum + h.failed, 0);
  const timed = hours.filter((h) => h.p50 > 0).map((h) => h.p50);
  const summary =
    checks === 0
      ? "No checks in the last 24 hours"
      : `Last 24 hours: ${checks} checks, ${failed} failed; hourly median latency ${timed.length ? `${formatLatency(Math.min(...timed))} to ${formatLatency(Math.max(...timed))}` : "none"}`;
  return (
    <svg className="sparkline" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
      {hours.map((h, i) =>
        h.failed > 0 ? <rect key={i} className="spark-failed" x={i * step} width={step} y={HEIGHT * (1 - h.failed / h.count)} height={(HEIGHT * h.failed) / h.count} /> : null,
      )}
      {points.length > 1 && <polyline className="spark-latency" points={points.join(" ")} />}
    </svg>
  );
}
